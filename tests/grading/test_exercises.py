"""Every exercise: its check passes on the solution, fails on the release stub and on every
known buggy variant (tests/variants/<id>__<bug>.py), and passes on other correct answers
(tests/variants/passing/<id>__<name>.py) — for several grader seeds, since the hidden cases
are drawn from the grading run's secret (``guard.case_rng``). ``pytest -m ex02_1`` runs one
exercise. The release stub is "not attempted": a note outside autograde, a failure under it.
"""
import pytest

import adapters
from labsupport.exercises.guard import GRADER_SEED_ENV

SEEDS = ("first grading run", "second grading run", "third grading run")


def _cases():
    for ex in adapters.exercise_ids():
        for source in ["solution", "release", *adapters.variants(ex),
                       *adapters.variants(ex, passing=True)]:
            yield pytest.param(ex, source, marks=getattr(pytest.mark, ex), id=f"{ex}-{source}")


def _failure(ex_id: str, obj, monkeypatch) -> AssertionError | None:
    """Run the visible check, then the hidden one under each grader seed; return the first
    AssertionError, if any."""
    check = adapters.check_function(ex_id)
    try:
        check(obj)
        for seed in SEEDS:
            monkeypatch.setenv(GRADER_SEED_ENV, seed)
            check(obj, hidden=True)
    except AssertionError as err:
        assert str(err).strip(), f"check_{ex_id} failed without telling the student what to fix"
        return err
    return None


@pytest.mark.parametrize("ex_id, source", list(_cases()))
def test_exercise(ex_id, source, monkeypatch, capsys):
    cell = adapters.cell(ex_id, "solution")
    monkeypatch.delenv("LAB_AUTOGRADE", raising=False)
    if cell.cell_type == "markdown":  # a discussion answer, graded by hand
        _manual(ex_id, source)
        return
    if source == "solution" or source.startswith("passing/"):
        err = _failure(ex_id, adapters.target(ex_id, source), monkeypatch)
        assert err is None, f"check_{ex_id} rejects a correct answer ({source}): {err}"
    elif source == "release":
        stub = adapters.cell(ex_id, "release").source
        assert f'NotImplementedError("{ex_id}: ' in stub, "the release stub must name the exercise"
        obj = adapters.target(ex_id, "release")  # the stub cell runs: Run All goes on
        check = adapters.check_function(ex_id)
        capsys.readouterr()
        assert check(obj) is None and check(obj, hidden=True) is None
        assert capsys.readouterr().out == f"{ex_id} not attempted yet\n" * 2
        monkeypatch.setenv("LAB_AUTOGRADE", "1")  # graded: 0, not a note
        with pytest.raises(AssertionError, match=f"^{ex_id}: not attempted"):
            check(obj)
    else:
        err = _failure(ex_id, adapters.target(ex_id, source), monkeypatch)
        assert err is not None, f"check_{ex_id} accepts the buggy variant {ex_id}__{source}"


def _manual(ex_id: str, source: str) -> None:
    meta = adapters.cell(ex_id, "solution").nbgrader
    assert meta.get("grade") and meta.get("solution") and meta.get("points", 0) > 0
    assert source in ("solution", "release"), "variants are for autograded exercises only"
    text = adapters.cell(ex_id, source).source.strip()
    if source == "solution":
        assert len(text.split()) >= 20, f"{ex_id}: give the trainer a model answer"
    else:
        assert text == "YOUR ANSWER HERE"



FUNCTION_CHECKS = ["ex01_1", "ex02_7", "ex03_1", "ex04_1", "ex04_4", "ex05_4", "ex06_1"]
# checks whose target is a function share one guard (exercises.guard)


@pytest.mark.parametrize("ex", FUNCTION_CHECKS)
def test_a_non_function_answer_is_named_not_crashed(ex):
    check, name = adapters.check_function(ex), adapters.target_name(ex)
    with pytest.raises(AssertionError, match=rf"^{ex}: pass your function {name} itself, got int"):
        check(42)
