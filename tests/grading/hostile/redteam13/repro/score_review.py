"""The copy review's score of redteam13's class cases against the lab's references and the
instructors' solution, as tests/grading/test_similarity.py::test_honest_different_solutions_are_not_flagged
scores an answer (the release's cell as ``given``).

    .venv/bin/python tests/grading/hostile/redteam13/repro/score_review.py
    # the same with the review before 1340c8e:
    rm -rf /tmp/lg_old && mkdir /tmp/lg_old && git archive 1340c8e^ labgrader | tar -x -C /tmp/lg_old
    LABGRADER_FROM=/tmp/lg_old .venv/bin/python tests/grading/hostile/redteam13/repro/score_review.py
"""
import os
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
print("labgrader from", similarity.__file__)
for case in hostile_cases.cases():
    if case.folder != "redteam13" or case.name not in {
            "pool_dict", "honest_pool13", "honest_batcher13", "honest_eager13"}:
        continue
    ex = case.target
    solution = "\n".join(line for line in adapters.cell(ex).source.splitlines()
                         if line.strip() not in MARKS)
    refs = {**similarity.reference_sources(ex), "solution": solution}
    given = adapters.cell(ex, "release").source
    match = similarity.best_match(case.source, refs, given)
    flagged = similarity.copy_reviews({ex: case.source}, {ex: refs}, {}, {ex: given})
    order = similarity.in_order(similarity.tokens(case.source), similarity.tokens(solution))
    print(f"{case.name:18s} {ex}: best_match {match}, token order vs the solution "
          f"{order:.3f}, flagged: {bool(flagged)}")
