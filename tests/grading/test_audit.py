"""The grading audit and the trusted pass, without nbgrader: fast.

The audit flags every hostile submission in ``tests/grading/hostile/`` (but one that only
loops) and no honest answer: not the solutions, not the other correct answers, not the
known buggy ones. The trusted pass accepts the solutions, rejects buggy answers, and
cannot be fooled by an answer cell that rebinds or patches the checks.
"""
from pathlib import Path

import pytest

import adapters
from labsupport.grading import audit, trusted

HOSTILE = Path(__file__).parent / "hostile"
NOT_FLAGGED = {"loop"}  # plain code that never ends: the timeout scores it 0


def _test_source(ex_id: str) -> str:
    """What nbgrader restores into the test cell: the visible and the hidden call."""
    name = adapters.target_name(ex_id)
    return f"check_{ex_id}({name})\ncheck_{ex_id}({name}, hidden=True)\n"


@pytest.mark.parametrize("name", sorted(p.stem for p in HOSTILE.glob("*.py")))
def test_hostile_cells_are_flagged(name):
    reasons = audit.audit((HOSTILE / f"{name}.py").read_text())
    assert bool(reasons) == (name not in NOT_FLAGGED), reasons


def test_honest_answers_are_not_flagged():
    flagged = {}
    for ex in adapters.exercise_ids():
        for source in ["solution", *adapters.variants(ex), *adapters.variants(ex, passing=True)]:
            c = adapters.cell(ex, source)
            if c.cell_type == "code" and audit.audit(c.source):
                flagged[ex, source] = audit.audit(c.source)
    assert not flagged, flagged


@pytest.mark.parametrize("src, why", [
    ("check_kc08_01(kc08_01)", None),                                   # a self-test
    ("from labsupport.exercises.kc08 import check_kc08_01", None),       # its import
    ("sum = 0\nfor x in [1, 2]:\n    sum += x", None),                  # a habit, not a trick
    ("from labsupport.exercises.kc08 import check_kc08_02 as check_kc08_01", "imports"),
    ("def check_ex02_1(*a):\n    pass", "rebinds the check name"),
    ("AssertionError = Exception", "rebinds the builtin"),
    ("import numpy as np\nnp.percentile = lambda *a, **k: 0", "patches the imported module"),
    ("import importlib\nimportlib.reload(np)", "importlib"),
    ("!rm -rf ~", "shell or magic"),
    ("def broken(:", None),                                             # cannot run
])
def test_audit_rules(src, why):
    reasons = audit.audit(src)
    if why is None:
        assert reasons == []
    else:
        assert any(why in r for r in reasons), reasons


def _kc_ids() -> list[str]:
    return [i for i in adapters.exercise_ids() if i.startswith("kc")
            and adapters.cell(i).cell_type == "code"]


@pytest.mark.slow
def test_trusted_pass_grades_like_the_checks():
    kc = _kc_ids()[:3]
    ex = [i for i in adapters.exercise_ids() if i.startswith("ex02")
          and adapters.cell(i).cell_type == "code"][:2]  # hand-graded discussions have no check
    assert kc and ex, "sanity: solutions/ has knowledge-check and notebook-02 items"
    items, want = [], {}
    for ex_id in kc + ex:
        items.append(trusted.Item(f"{ex_id}_test", adapters.cell(ex_id).source, _test_source(ex_id)))
        want[f"{ex_id}_test"] = "pass"
    for ex_id in ex:  # a known buggy answer of each
        bug = adapters.variants(ex_id)[0]
        items.append(trusted.Item(f"{ex_id}_test", adapters.cell(ex_id, bug).source,
                                  _test_source(ex_id)))
    results = trusted.run_items(items[:len(want)], timeout_s=60)
    assert {k: v[0] for k, v in results.items()} == want, results
    buggy = trusted.run_items(items[len(want):], timeout_s=60)
    assert all(status == "fail" for status, _ in buggy.values()), buggy


@pytest.mark.slow
@pytest.mark.parametrize("name", ["rebind", "internals", "modules_swap", "obfuscated",
                                  "assertion_swap", "exit", "loop"])
def test_trusted_pass_is_not_fooled(name):
    first = _kc_ids()[0]
    src = (HOSTILE / f"{name}.py").read_text()
    got = trusted.run_items([trusted.Item(f"{first}_test", src, _test_source(first))],
                            timeout_s=3)
    status, message = got[f"{first}_test"]
    assert status in ("fail", "tampered"), (status, message)
