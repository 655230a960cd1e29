"""redteam16: honest answers with their state, config or counters on a SimpleNamespace, scored
by the copy review now and before canonical._Holders (HEAD~1 = 1830823^):

    .venv/bin/python tests/grading/hostile/redteam16/repro/honest.py
    rm -rf /tmp/lg_old && mkdir /tmp/lg_old && git archive 1830823^ labgrader | tar -x -C /tmp/lg_old
    LABGRADER_FROM=/tmp/lg_old .venv/bin/python tests/grading/hostile/redteam16/repro/honest.py
"""
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
if os.environ.get("LABGRADER_FROM"):
    sys.path.insert(0, os.environ["LABGRADER_FROM"])
sys.path.insert(0, str(ROOT / "tests"))

import adapters  # noqa: E402
import hostile_cases  # noqa: E402
from labgrader import similarity  # noqa: E402

MARKS = {"### BEGIN SOLUTION", "### END SOLUTION"}


def score(ex, src):
    solution = "\n".join(line for line in adapters.cell(ex).source.splitlines()
                         if line.strip() not in MARKS)
    refs = {**similarity.reference_sources(ex), "solution": solution}
    given = adapters.cell(ex, "release").source
    flagged = similarity.copy_reviews({ex: src}, {ex: refs}, {}, {ex: given})
    order = similarity.in_order(similarity.tokens(src), similarity.tokens(solution))
    m = similarity.best_match(src, refs, given)
    return f"best {m.score:.2f} {m.how:7s} order {order:.3f} flagged {bool(flagged)}"


def own(src):
    """The attributes an answer assigns (self.x = …), not its methods."""
    methods = set(re.findall(r"def (\w+)\(self", src))
    return sorted(set(re.findall(r"self\.(\w+)\s*(?:=|,)", src)) - methods)


def init_line(src):
    m = re.search(r"    def __init__\(self[^)]*\):\n", src)
    return m.group(0)


def variants(src):
    attrs = own(src)
    pat = re.compile(r"self\.(" + "|".join(attrs) + r")\b")
    init = init_line(src)
    head = "from types import SimpleNamespace\n"
    out = {"as written": src}
    out["state on self.st = SimpleNamespace()"] = head + pat.sub(r"self.st.\1", src).replace(
        init, init + "        self.st = SimpleNamespace()\n", 1)
    first = attrs[0]
    m = re.search(rf"        self\.{first} = (.*)\n", src)
    cfg = re.sub(rf"self\.{first}\b", f"self.cfg.{first}", src).replace(
        f"        self.cfg.{first} = {m.group(1)}\n",
        f"        self.cfg = SimpleNamespace({first}={m.group(1)})\n", 1)
    out[f"config self.cfg = SimpleNamespace({first}=…)"] = head + cfg
    stats = src.replace(init, init + "        self.stats = SimpleNamespace(calls=0, peak=0)\n", 1)
    body = re.search(r"\n    (?:async )?def (?!__init__)\w+\(self[^)]*\):\n(        \"\"\".*?\"\"\"\n)?", stats)
    stats = stats[:body.end()] + "        self.stats.calls += 1\n        self.stats.peak = max(self.stats.peak, self.stats.calls)\n" + stats[body.end():]
    out["counters self.stats = SimpleNamespace(calls=0, peak=0)"] = head + stats
    return out


cases = {c.name: c for c in hostile_cases.cases()}
pieces = [(cases[n].target, n, cases[n].source) for n in ("honest_pool13", "honest_batcher13")]
for ex, name in (("ex06_8", "scan_tables"), ("ex02_1", "lesson")):
    pieces.append((ex, f"passing/{name}", (ROOT / f"tests/variants/passing/{ex}__{name}.py").read_text()))
print("labgrader from", similarity.__file__)
for ex, name, src in pieces:
    for label, v in variants(src).items():
        compile(v, label, "exec")
        print(f"{name:20s} {ex} {label:52s} {score(ex, v)}")
