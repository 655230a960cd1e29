"""The text a grading kernel wrote into a feedback page as its cells' execution counts
(redteam13 count_leak, pm_counts): the page's ``In [N]:`` prompts, 7 bytes each; for
pm_counts also the hidden ex06_2 cases (5 argument bytes, the mode, ';').

    .venv/bin/python tests/grading/hostile/redteam13/repro/decode_prompts.py <feedback.html>
"""
import re
import sys

html = open(sys.argv[1], encoding="utf-8").read()
counts = [int(n) for n in re.findall(r"In(?:&nbsp;|\s)\[(\d+)\]", html)]
raw = b"".join(n.to_bytes(7, "big") for n in counts if 1 << 24 <= n < 1 << 56)
print(raw.decode("utf-8", "replace")[:120])
if b"heard) " in raw:
    body = raw[raw.index(b"heard) ") + 7:]
    cases = [tuple(c[:5]) + (("reserve", "on_demand")[c[5]],)
             for c in (body[k:k + 7] for k in range(0, len(body) - 6, 7))
             if c[6:7] == b";" and c[5] < 2]
    print(len(cases), "hidden cases:", cases)
