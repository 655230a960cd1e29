"""redteam16's in-process measurements (no grading run): each case of this folder scored by the
copy review against its exercise's references and the instructors' solution (best_match,
token order, flagged), then against the class the graded test builds (every hostile case of
the same exercise, as classmates: a copier is alone in a real class; two cases of one
spelling flag each other as a pair).

    .venv/bin/python tests/grading/hostile/redteam16/repro/probe.py
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tests"))

import adapters  # noqa: E402
import hostile_cases  # noqa: E402
from labgrader import similarity  # noqa: E402

MARKS = {"### BEGIN SOLUTION", "### END SOLUTION"}
every = hostile_cases.cases()
UNBUILT = sorted((Path(__file__).parent / "unbuilt").glob("*.py"))  # the same edits, not graded:
#   in one class each would flag its twin of another spelling as a pair (a copier is alone)
for case in [c for c in every if c.folder == "redteam16"] + [hostile_cases.case(p) for p in UNBUILT]:
    ex, src = case.target, case.source
    solution = "\n".join(line for line in adapters.cell(ex).source.splitlines()
                         if line.strip() not in MARKS)
    refs = {**similarity.reference_sources(ex), "solution": solution}
    given = adapters.cell(ex, "release").source
    alone = similarity.copy_reviews({ex: src}, {ex: refs}, {}, {ex: given})
    order = similarity.in_order(similarity.tokens(src), similarity.tokens(solution))
    m = similarity.best_match(src, refs, given)
    mates = {c.name: {ex: c.source} for c in every if c.target == ex and c.name != case.name}
    if case.folder == "unbuilt":
        mates = {}  # not in the graded class
    in_class = similarity.copy_reviews({ex: src}, {ex: refs}, mates, {ex: given})
    print(f"{case.folder[:7]:7s} {case.name:20s} {ex}: best_match {m.score:.2f} ({m.how}), token order {order:.3f}, "
          f"flagged alone: {bool(alone)}; in the test's class: {in_class.get(ex, '-')[:90]}")
