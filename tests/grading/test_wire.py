"""The record the trusted pass hands its judge (``labgrader/wire.py``, ``labgrader/tape.py``): plain
values survive the round trip exactly; a student's own objects come back as stand-ins that
carry only their type's name and run none of their code; a forged record is refused; and the
judge, asking the student process for each call (``Remote``), reaches the same verdict as the
check beside the student's code."""
import io
import json
import math
import pickle

import numpy as np
import pytest

from labgrader import wire
from labgrader.tape import Remote, Tape, TapeMismatch
from labsupport.exercises import guard
from labsupport.exercises.ex03 import check_ex03_2
from labsupport.exercises.plain import NotPlain, plain
from labsupport.sim.scenarios import Call, Outcome, ProbeResult


def trip(v):
    return wire.decode(json.loads(json.dumps(wire.encode(v), allow_nan=False)))


@pytest.mark.parametrize("value", [
    None, True, 0, -7, 2**70, 1.5, "text", [1, [2, 3]], (1, "a"), {"k": [1.0, None]},
    {1, 2}, frozenset({"x"}), b"\x00\xff", 3 + 4j, {(1, 2): "tuple key"}])
def test_plain_values_survive_exactly(value):
    got = trip(value)
    assert got == value and type(got) is type(value)


def test_special_floats_numpy_and_exceptions():
    got = trip([math.inf, -math.inf])
    assert got == [math.inf, -math.inf]
    assert math.isnan(trip(float("nan")))
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    back = trip(arr)
    assert back.dtype == np.float32 and back.shape == (2, 3) and np.array_equal(back, arr)
    assert type(trip(np.int64(5))) is np.int64 and trip(np.int64(5)) == 5
    err = trip(ValueError("length 9 is above the last edge"))
    assert type(err) is ValueError and err.args == ("length 9 is above the last edge",)
    stub = trip(NotImplementedError("ex03_2: write bucket_index"))
    assert guard.is_stub("ex03_2", stub)


def test_lab_dataclasses_come_back_as_themselves():
    res = ProbeResult([Outcome("r0", 0.0, "ok", "R0!", 3.0)], [Call(1.0, ["r0"], False)],
                      task_errors=[RuntimeError("boom")])
    back = trip(res)
    assert type(back) is ProbeResult and back.outcomes[0].value == "R0!"
    assert back.batch_sizes == [1] and list(back.latency_ms) == [3.0]
    assert type(back.task_errors[0]) is RuntimeError


def test_student_objects_are_stand_ins_that_run_nothing():
    ran = []

    class Sneaky(str):
        def __eq__(self, other):
            ran.append("eq")
            return True

        def __hash__(self):
            return 0

    class MyError(ValueError):
        def __str__(self):
            ran.append("str")
            return "patched"

    back = trip([Sneaky("a"), MyError("bad input")])
    assert ran == []
    assert type(back[0]).__name__ == "Sneaky" and isinstance(back[0], wire.Opaque)
    assert not back[0] == "a"
    with pytest.raises(NotPlain, match="Sneaky"):
        plain("ex03_2", back[0])
    assert isinstance(back[1], ValueError) and type(back[1]).__name__ == "MyError"
    assert back[1].args == ("bad input",) and ran == []
    cls = trip(Sneaky)
    assert isinstance(cls, type) and cls.__name__ == "Sneaky" and cls is not Sneaky


@pytest.mark.parametrize("forged", [
    [1, 2], {"zz": 1}, {"dc": ["labsupport.sim.scenarios", "ProbeResult"], "f": {"x": 1}},
    {"dc": ["os", "system"], "f": {}}, {"nd": "|O", "shape": [1], "data": ""}, {"l": [{"t": 5}]}])
def test_a_forged_record_is_refused(forged):
    with pytest.raises(wire.WireError):
        wire.decode(forged)


def test_an_exception_type_from_elsewhere_is_never_imported():
    back = wire.decode({"e": ["subprocess", "CalledProcessError"], "base": "Exception", "args": []})
    assert type(back).__name__ == "CalledProcessError" and type(back).__module__ != "subprocess"


def _record(fn, hidden):
    tape = Tape()
    tape.armed = True
    with guard.grading(tape=tape):
        try:
            check_ex03_2(fn, hidden=hidden)
            verdict = "pass"
        except AssertionError:
            verdict = "fail"
    return verdict, json.loads(json.dumps(tape.records))


def _replay(records, name="bucket_index"):
    """The judge's side (``Remote``) on ``records`` as the student process's answers, in
    order; a request names the student's function by its stand-in."""
    answers = iter(records)
    stand_in = wire.decode({"fn": name})

    class Student(pickle.Unpickler):  # the student process's side: the function by its name
        def persistent_load(self, pid):
            return pid

    def ask(request):
        ex, mode, fn, args, kw = Student(io.BytesIO(request)).load()
        assert (ex, mode, fn) == ("ex03_2", "bounded", name) and not kw
        return next(answers, None)
    remote = Remote(ask, {id(stand_in): name})
    with guard.grading(tape=remote):
        try:
            check_ex03_2(stand_in, hidden=True)
            if next(answers, None) is not None:
                raise TapeMismatch("left over")
            return "pass"
        except TapeMismatch:
            return "mismatch"
        except AssertionError:
            return "fail"


def right(length, edges):
    for i, edge in enumerate(edges):
        if length <= edge:
            return i
    raise ValueError(f"length {length} is above the last edge")


def off_by_one(length, edges):
    for i, edge in enumerate(edges):
        if length < edge:
            return i
    raise ValueError(f"length {length} is above the last edge")


def test_the_judge_replays_the_verdict_and_refuses_a_doctored_record(monkeypatch):
    monkeypatch.setattr(guard, "CONTEXT", guard.GradingContext(secret="a-test-secret"))
    for fn, want in ((right, "pass"), (off_by_one, "fail")):
        verdict, records = _record(fn, hidden=True)
        assert verdict == want and records
        assert _replay(records) == want
    _, records = _record(right, hidden=True)
    assert _replay(records[:-1]) == "mismatch"            # cut
    assert _replay(records + records[-1:]) == "mismatch"  # padded
    _, wrong = _record(off_by_one, hidden=True)
    i = next(i for i, (a, b) in enumerate(zip(records, wrong)) if a != b)
    assert _replay(records[:i] + [wrong[i]] + records[i + 1:]) == "fail"  # one answer swapped
