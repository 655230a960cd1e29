"""redteam17's in-process measurements of its copies (no grading run): each case of this
folder scored by the copy review against its exercise's references and the instructors'
solution (best_match, token order, flagged alone), then in the class the graded test builds
(every other hostile case of the same exercise as a classmate), and run through its
exercise's check (visible and hidden). LABGRADER_FROM=<dir> loads an older labgrader.

    .venv/bin/python tests/grading/hostile/redteam17/repro/probe.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import score as S  # noqa: E402  (puts tests/ on the path)
import hostile_cases  # noqa: E402
from labgrader import similarity  # noqa: E402
from labsupport.exercises.registry import check_of, exercise  # noqa: E402

every = hostile_cases.cases()
UNBUILT = sorted((Path(__file__).parent / "unbuilt").glob("*.py"))
for case in [c for c in every if c.folder == "redteam17"] + [hostile_cases.case(p) for p in UNBUILT]:
    ex, src = case.target, case.source
    ns = {}
    exec(compile(src, case.name, "exec"), ns)
    try:
        obj = ns[exercise(ex).target]
        check_of(ex)(obj)
        check_of(ex)(obj, hidden=True)
        ok = "check passes"
    except BaseException as e:  # noqa: BLE001
        ok = f"check FAILS: {str(e)[:60]}"
    mates = {} if case.folder == "unbuilt" else \
        {c.name: {ex: c.source} for c in every if c.target == ex and c.name != case.name}
    refs = {**similarity.reference_sources(ex), "solution": S.solution(ex)}
    given = S.adapters.cell(ex, "release").source
    in_class = similarity.copy_reviews({ex: src}, {ex: refs}, mates, {ex: given})
    print(f"{case.folder[:9]:9s} {S.line(case.name, ex, src)}; {ok}; "
          f"in the test's class: {in_class.get(ex, '-')[:80]}")
