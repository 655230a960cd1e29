"""The judge alone scores, on plain values, with no secret in reach of a submission (issue 30):

- a call's record holds only exact builtin, numpy and lab types, read without running any
  method of the value (``exercises/wire.py``, ``exercises/plain.py``);
- no box gets the run's seed, only per-exercise keys that draw the same hidden cases
  (``grading/seed.py``); a verdict on a hidden case carries no text the student's code made;
- a box that cannot run the lab stops grading (``trusted.GradingEnvironmentError``), and the
  preflight grades the solutions first: a solution without full marks, or a kernel that does
  not start, stops grading before any grade is written (``grading/preflight.py``).

The hostile submissions of ``hostile/judge`` (forged kernel outputs) are graded for real by
``test_hostile.py``.
"""
import json
import shutil
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbgrader.api import Gradebook, MissingEntry

import adapters
import hostile_cases
from labsupport.exercises import guard, plain
from labgrader import wire
from labgrader.tape import Tape
from labgrader import Course, cellcode, course_config, parallel, pipeline, seed, trusted

ROOT = Path(__file__).resolve().parents[2]
SEED = "0123456789abcdef-test-seed"


class Spy(np.int64):
    """A numpy scalar subclass whose methods say they ran."""
    ran: list = []

    def item(self):
        Spy.ran.append("item")
        return 3

    def __float__(self):
        Spy.ran.append("float")
        return 3.0

    def __eq__(self, other):
        Spy.ran.append("eq")
        return True

    __hash__ = np.int64.__hash__


class Liar(type):
    def __eq__(cls, other):
        return True

    __hash__ = type.__hash__


class LyingInt(int, metaclass=Liar):
    pass


class Forged:
    def item(self):
        raise AssertionError("Forged.item ran")


Forged.__module__, Forged.__qualname__, Forged.__name__ = "numpy", "int64", "int64"


def test_a_record_holds_only_exact_types_and_runs_nothing_of_the_value():
    Spy.ran.clear()
    for bad in (Spy(1), [Spy(1)], {"k": (Spy(1),)}, Forged(), LyingInt(1)):
        with pytest.raises(wire.NotPlain):
            wire.encode(bad, strict=True)
    assert Spy.ran == []
    for good in (np.float64(2.5), np.int32(7), np.bool_(True), [1, (2.0, "x")], {"a": None},
                 np.arange(3)):
        back = wire.decode(wire.encode(good, strict=True))
        assert type(back) is type(good) and np.all(back == good)
    with pytest.raises(AssertionError, match="LyingInt"):  # its metaclass's == is not asked
        plain.plain("ex", LyingInt(1))
    assert plain.plain("ex", np.float32(0.5)) == 0.5 and Spy.ran == []


def test_a_call_that_returns_no_plain_value_fails_and_is_encoded_under_the_watch():
    entered = []

    class Watch:
        def __init__(self, ex):
            pass

        def __enter__(self):
            entered.append("in")

        def __exit__(self, *a):
            entered.append("out")

    def answer():
        return Spy(1)
    tape = Tape()
    tape.armed = True
    with guard.grading(watch=Watch):
        with pytest.raises(AssertionError, match="not a plain value"):
            tape.call("ex03_2", answer, (), {})
    assert entered == ["in", "out"] and Spy.ran == []
    assert tape.records[0][1] == "raise"


def test_keys_draw_the_seeds_cases_and_the_kernel_gets_none(monkeypatch):
    monkeypatch.setenv(guard.GRADER_SEED_ENV, SEED)
    keys = seed.hidden_keys(["ex03_2", "ex03_3"])  # what the trusted pass's job holds
    assert SEED not in json.dumps(keys)
    want = guard.case_rng("ex03_2", True).integers(0, 1 << 30, 8)
    monkeypatch.delenv(guard.GRADER_SEED_ENV)
    with guard.grading(keys=keys):
        assert (guard.case_rng("ex03_2", True).integers(0, 1 << 30, 8) == want).all()
    env = seed.without_seed({guard.GRADER_SEED_ENV: "x", "A": "b"})
    assert env == {"A": "b"}  # the kernel's: no seed (and no key: it never had one)


def test_a_kernel_runs_a_test_cells_visible_part_alone():
    from labgrader.execute import visible_part
    test = nbformat.v4.new_code_cell(
        f"check_ex03_2(bucket_index)\n{trusted.HIDDEN_MARK}\ncheck_ex03_2(bucket_index, hidden=True)\n"
        "### END HIDDEN TESTS", metadata={"nbgrader": {"grade": True, "solution": False,
                                                       "grade_id": "ex03_2_test", "points": 2}})
    assert visible_part(test) == "check_ex03_2(bucket_index)"
    answer = nbformat.v4.new_code_cell(test.source, metadata={"nbgrader": {
        "grade": False, "solution": True, "grade_id": "ex03_2"}})
    plain = nbformat.v4.new_code_cell("check_ex03_2(bucket_index)", metadata=test.metadata)
    assert visible_part(answer) is None and visible_part(plain) is None


def _item(name: str) -> trusted.Item:
    case = hostile_cases.case(hostile_cases.JUDGE / f"{name}.py")
    name_ = adapters.target_name(case.target)
    test = (f"check_{case.target}({name_})\n{trusted.HIDDEN_MARK}\n"
            f"check_{case.target}({name_}, hidden=True)\n### END HIDDEN TESTS")
    return trusted.Item(f"{case.target}_test", cellcode.python_source(case.source), test)


@pytest.mark.slow
def test_no_seed_and_no_student_text_in_a_verdict(monkeypatch):
    monkeypatch.setenv(guard.GRADER_SEED_ENV, SEED)
    items = [_item("seed_print"), _item("seed_print_guard")]
    for item in items:
        status, message, _ = trusted.run_items([item], timeout_s=30)[item.grade_id]
        assert status == "fail" and SEED not in message, (item, message)
    status, message, _ = trusted.run_items([_item("hidden_exc")], timeout_s=30)["ex03_2_test"]
    assert status == "fail" and message.endswith(trusted.HIDDEN_NOTE), message
    for text in ("Case_", "leaked", "length=", "edges="):
        assert text not in message, message


def test_a_box_that_cannot_import_the_lab_stops_grading():
    def isolated(argv, stdin, timeout_s, env):  # a python that does not see the lab's venv
        return trusted._subprocess([sys.executable, "-I", "-S", *argv[1:]], stdin, timeout_s, env)
    item = trusted.Item("ex03_2_test", "def bucket_index(n, e):\n    return 0\n", "pass")
    with pytest.raises(trusted.GradingEnvironmentError, match="could not start"):
        trusted.run_items([item], timeout_s=10, run=isolated)


@pytest.fixture
def padding_course(tmp_path):  # its own per test: a run seals the course as it finds it
    root = tmp_path
    shutil.copytree(ROOT / "solutions" / "03_padding", root / "solutions" / "03_padding")
    course = Course(course_config(root, **{"Execute.timeout": 30}))
    assert course.release()
    release = root / "notebooks" / "03_padding" / "03_padding.ipynb"
    dest = course._dir("submitted") / "student1" / "03_padding"
    dest.mkdir(parents=True)
    shutil.copy(release, dest)
    return course


def _graded(course, student="student1") -> bool:
    with Gradebook(course.coursedir.db_url) as gb:
        try:
            gb.find_submission("03_padding", student)
            return True
        except MissingEntry:
            return False


@pytest.mark.slow
@pytest.mark.parametrize("how", ["in turn", "jobs"])
def test_preflight_stops_on_a_solution_without_full_marks(padding_course, capsys, how):
    """In turn (``Course.autograde``) and with jobs (``parallel.autograde``: the preflight's
    jobs run alone, and no student's job starts)."""
    course = padding_course
    src = course._dir("source") / "03_padding" / "03_padding.ipynb"
    good = src.read_text()
    nb = nbformat.read(src, 4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex03_2")
    cell.source = "def bucket_index(length, edges):\n    return 0\n"
    nbformat.write(nb, src)
    try:
        assert not (course.autograde() if how == "in turn"
                    else parallel.autograde(course, jobs=2, progress=False))
    finally:
        src.write_text(good)
    err = capsys.readouterr().err
    assert "preflight" in err and "ex03_2" in err and "0 of 2 points" in err, err
    assert "ex03_1" not in err.split("preflight", 1)[1], err  # only what went wrong
    assert not _graded(course)


@pytest.mark.slow
def test_a_kernel_that_does_not_start_stops_grading(padding_course, capsys):
    course = padding_course
    course.cfg.Execute.kernel_name = "no-such-kernel"
    try:
        assert not parallel.autograde(course, jobs=1, progress=False)
    finally:
        del course.cfg.Execute["kernel_name"]
    err = capsys.readouterr().err
    assert "preflight" in err and "no-such-kernel" in err, err[-2000:]
    assert not _graded(course)


def test_a_trusted_pass_beside_the_kernel_ends_with_the_notebook():
    """``pipeline.Judging``: its verdicts once it ended; its error raised in the job; and a
    notebook whose kernel run failed kills the pass's box, held before or after."""
    import threading

    class Box:
        why = None

        def kill(self, why=None):
            self.why = why

    class Checks:
        def __init__(self, fail=None):
            self.box, self.go, self.fail = Box(), threading.Event(), fail

        def _run_trusted(self, items, timeout, judging):
            judging.hold(self.box)
            self.go.wait(30)
            if self.fail:
                raise self.fail
            return {i: ("pass", "", None) for i in items}
    checks = Checks()
    judging = pipeline.Judging(checks, ["ex03_2_test"], 1.0)
    checks.go.set()
    assert judging.result() == {"ex03_2_test": ("pass", "", None)} and checks.box.why is None
    checks = Checks(fail=trusted.GradingEnvironmentError("no lab in the box"))
    judging = pipeline.Judging(checks, [], 1.0)
    judging.cancel()
    checks.go.set()
    with pytest.raises(trusted.GradingEnvironmentError, match="no lab"):
        judging.result()
    assert checks.box.why == "grading stopped"
