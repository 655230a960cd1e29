"""redteam14's in-process measurements (no grading run): which checks quote a returned int,
float or int-keyed dict on hidden cases (hole 1), budget_str's message (hole 2), and the copy
review's score of one-edit namespace spellings (hole 3).

    .venv/bin/python tests/grading/hostile/redteam14/repro/probe.py
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tests"))

import adapters  # noqa: E402
from labgrader import similarity  # noqa: E402
from labsupport.exercises import guard  # noqa: E402
from labsupport.exercises.plain import describe_error  # noqa: E402

BIG = int("7" * 79)
FL = 0.12345678901234567


def returns(v):
    return lambda *a, **k: v


class Big:
    def __init__(self, *a, **k):
        pass

    def __getattr__(self, name):
        return returns(BIG)


def message(ex, answer):
    try:
        adapters.check_function(ex)(answer, hidden=True)
    except Exception as err:  # noqa: BLE001
        return describe_error(err)[:500]
    return ""


EXERCISES = [ex for ex in adapters.exercise_ids() if ex.startswith("ex")]
for label, answers, mark in (("a 79-digit int", (returns(BIG), Big), "7" * 40),
                             ("a float's repr", (returns(FL),), "12345678901234"),
                             ("int dict keys on plain()'s path",
                              (returns({BIG: {BIG + 1: set()}}),), "7" * 40)):
    hit = [ex for ex in EXERCISES if any(mark in message(ex, a) for a in answers)]
    print(f"hole 1, hidden cases quote {label}: {len(hit)} of {len(EXERCISES)}: {hit}")

ns = {}
exec((ROOT / "tests/grading/hostile/redteam14/budget_str.py").read_text(), ns)
msg = message("ex03_3", ns["budget_batches"])
tail = msg[msg.find("[rt9-leak] (") + 12:]
bits = "".join(f"{ord(c) - 0x4E00:014b}" for c in tail if 0x4E00 <= ord(c) < 0x4E00 + (1 << 14))
print("hole 2:", msg)
print("  decoded:", [int(bits[i:i + 8], 2) for i in range(0, len(bits) - 7, 8)])
print("  first hidden case asked:", ns["_seen"][0])

MARKS = {"### BEGIN SOLUTION", "### END SOLUTION"}


def score(ex, src):
    solution = "\n".join(line for line in adapters.cell(ex).source.splitlines()
                         if line.strip() not in MARKS)
    refs = {**similarity.reference_sources(ex), "solution": solution}
    given = adapters.cell(ex, "release").source
    flagged = similarity.copy_reviews({ex: src}, {ex: refs}, {}, {ex: given})
    order = similarity.in_order(similarity.tokens(src), similarity.tokens(solution))
    return similarity.best_match(src, refs, given), round(order, 3), bool(flagged)


pool_dict = (ROOT / "tests/grading/hostile/redteam13/pool_dict.py").read_text()
for made in ("self.s = {}", "self.s = dict()", "self.s: dict = {}", "self.s = {**{}}",
             "s = self.s = {}"):
    print(f"hole 3, ex06_8 {made!r:24}", score("ex06_8", pool_dict.replace("self.s = {}", made)))
for name in ("pool_dict_call", "batcher_dict_call"):
    src = (ROOT / f"tests/grading/hostile/redteam14/{name}.py").read_text()
    ex = re.search(r"# target: (\w+)", src).group(1)
    print(f"hole 3, {name} ({ex})", score(ex, src))
