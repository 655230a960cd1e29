"""On its hidden cases a check's verdict holds nothing the student's code chose. The
student's code knew the hidden cases then, and the feedback shows the verdict: a string it
returned (redteam13 ``verdict_md1``, ``verdict_challenge``), a big int or an int dict key
on a value's path, a class's name (redteam14 ``int_md1``), the class of an exception it
raised (redteam15 ``class_budget``) would carry them out. The judge's
verdict on a hidden case (``labgrader.trusted._hidden_verdict``) is the lab's fixed text,
unless the check's message is in the lab's words alone (``guard.LabWords``, a
``PartialScore``'s numbers), and those must then hold no mark either."""
import sys
import types
from pathlib import Path

import pytest

from labgrader import trusted
from labsupport.exercises import guard
from labsupport.exercises.partial import PartialScore

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import adapters  # noqa: E402

MARK = "zq-packed-hidden-cases-zq"
NUMBER = int.from_bytes(MARK.encode(), "big")  # the mark as one int (61 digits)
MARKS = (MARK, MARK.replace("-", "_"), str(NUMBER), "FloatingPointError")


def returns_mark(*args, **kw):
    return MARK


def returns_marks(*args, **kw):  # the mark inside values a message may print whole
    return [MARK, {MARK: (MARK,)}]


def returns_number(*args, **kw):
    return NUMBER


def returns_keyed(*args, **kw):  # a path of int keys (``plain`` names the path it rejects)
    return {NUMBER: {NUMBER: set()}}


Named = type(MARK.replace("-", "_"), (), {})  # a class whose name is the mark


def returns_named(*args, **kw):
    return Named()


NamedError = type(MARK.replace("-", "_"), (Exception,), {})  # an exception class named so


def raises_named(*args, **kw):
    raise NamedError()


def raises_chosen(*args, **kw):  # a builtin class the answer picks (redteam15 class_budget)
    raise FloatingPointError()


class Marked:
    """An answer class whose every method returns the mark."""

    def __init__(self, *args, **kw):
        pass

    def __getattr__(self, name):
        return returns_mark


ANSWERS = (returns_mark, returns_marks, returns_number, returns_keyed, returns_named,
           raises_named, raises_chosen, Marked)
EXERCISES = [ex for ex in adapters.exercise_ids() if ex.startswith("ex")]


def _failure(ex: str, answer, hidden: bool) -> BaseException | None:
    """What the check raised."""
    try:
        adapters.check_function(ex)(answer, hidden=hidden)
    except Exception as err:  # noqa: BLE001 - the check's verdict, whatever its type
        return err
    return None


def _verdict(ex: str, err: BaseException) -> str:
    return trusted._hidden_verdict(err, types.SimpleNamespace(grade_id=f"{ex}_test"))


@pytest.mark.parametrize("ex", EXERCISES)
def test_a_verdict_on_hidden_cases_holds_nothing_the_answer_chose(ex):
    for answer in ANSWERS:
        err = _failure(ex, answer, hidden=True)
        if err is None:
            continue
        verdict = _verdict(ex, err)
        assert not any(m in verdict for m in MARKS), (ex, answer.__name__, verdict)
        if type(err) in (PartialScore, guard.LabWords):  # shown as the check wrote it
            assert trusted.HIDDEN_FAIL not in verdict
        else:  # the lab's words, under a name the answer did not choose
            assert verdict.startswith(f"{trusted.HIDDEN_ERROR}: {ex}: {trusted.HIDDEN_FAIL}")


def test_the_checks_messages_quote_the_answer():
    """The probe can fail: the checks' own messages (visible cases, and hidden ones before
    the judge words them) do quote what the answer returned."""
    quoted = [ex for ex in EXERCISES for answer in ANSWERS
              if any(m in str(_failure(ex, answer, hidden=True)) for m in MARKS)]
    assert len(quoted) >= 3, quoted
