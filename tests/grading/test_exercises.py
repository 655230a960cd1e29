"""Every exercise: its check passes on the solution, fails on the release stub and on every
known buggy variant (tests/variants/<id>__<bug>.py), and passes on other correct answers
(tests/variants/passing/<id>__<name>.py). ``pytest -m ex02_1`` runs one exercise."""
import pytest

import adapters


def _cases():
    for ex in adapters.exercise_ids():
        for source in ["solution", "release", *adapters.variants(ex),
                       *adapters.variants(ex, passing=True)]:
            yield pytest.param(ex, source, marks=getattr(pytest.mark, ex), id=f"{ex}-{source}")


def _failure(ex_id: str, obj) -> AssertionError | None:
    """Run the visible then the hidden check; return the AssertionError, if any."""
    check = adapters.check_function(ex_id)
    try:
        check(obj)
        check(obj, hidden=True)
    except AssertionError as err:
        assert str(err).strip(), f"check_{ex_id} failed without telling the student what to fix"
        return err
    return None


@pytest.mark.parametrize("ex_id, source", list(_cases()))
def test_exercise(ex_id, source):
    cell = adapters.cell(ex_id, "solution")
    if cell.cell_type == "markdown":  # a discussion answer, graded by hand
        _manual(ex_id, source)
        return
    if source == "solution" or source.startswith("passing/"):
        err = _failure(ex_id, adapters.target(ex_id, source))
        assert err is None, f"check_{ex_id} rejects a correct answer ({source}): {err}"
    elif source == "release":
        stub = adapters.cell(ex_id, "release").source
        assert f'NotImplementedError("{ex_id}: ' in stub, "the release stub must name the exercise"
        try:
            obj = adapters.target(ex_id, "release")
        except NotImplementedError as err:
            assert str(err).startswith(f"{ex_id}:")
            return
        with pytest.raises((AssertionError, NotImplementedError)):
            check = adapters.check_function(ex_id)
            check(obj)
            check(obj, hidden=True)
    else:
        err = _failure(ex_id, adapters.target(ex_id, source))
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



FUNCTION_CHECKS = [  # checks whose target is a function share one guard (exercises.guard)
    ("ex01", "ex01_1", "utilisation"), ("ex02_knee", "ex02_7", "p99_vs_delay"),
    ("ex03", "ex03_1", "pad_batch"), ("ex04", "ex04_1", "mean_pool"),
    ("ex04", "ex04_4", "dispatch_at"),
    ("ex05", "ex05_4", "kv_budget"), ("ex06", "ex06_1", "schedule_step")]


@pytest.mark.parametrize("module, ex, name", FUNCTION_CHECKS)
def test_a_non_function_answer_is_named_not_crashed(module, ex, name):
    import importlib
    check = getattr(importlib.import_module(f"labsupport.exercises.{module}"), f"check_{ex}")
    with pytest.raises(AssertionError, match=rf"^{ex}: pass your function {name} itself, got int"):
        check(42)
