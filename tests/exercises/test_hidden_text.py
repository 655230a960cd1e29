"""On its hidden cases a check's message quotes no text the student's code made: a string
an answer returns is described by its length only (``plain.describe`` under
``guard.CONTEXT.hidden``: a check called with ``hidden=True``, or the judge's hidden phase). The grader's feedback shows a failed check's message, and
redteam13's answers returned strings that packed the hidden cases they were asked
(``verdict_md1``, ``verdict_challenge``)."""
import contextlib
import sys
from pathlib import Path

import pytest

from labsupport.exercises import guard

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import adapters  # noqa: E402

MARK = "zq-packed-hidden-cases-zq"


def returns_mark(*args, **kw):
    return MARK


def returns_marks(*args, **kw):  # the mark inside a value a message may print whole
    return [MARK, {MARK: (MARK,)}]


Named = type(MARK.replace("-", "_"), (), {})  # a class whose name is the mark


def returns_named(*args, **kw):
    return Named()


class Marked:
    """An answer class whose every method returns the mark."""

    def __init__(self, *args, **kw):
        pass

    def __getattr__(self, name):
        return returns_mark


EXERCISES = [ex for ex in adapters.exercise_ids() if ex.startswith("ex")]


def _message(ex: str, answer, hidden: bool, phase: bool = False) -> str:
    """The check's message; ``phase``: called as the judge's hidden phase calls it (the test
    cell's hidden part, which may not pass ``hidden=True``: ex09_1 always draws hidden traces
    when graded), inside ``guard.grading(hidden=True)`` as ``labgrader.trusted`` sets it."""
    try:
        with guard.grading(hidden=True) if phase else contextlib.nullcontext():
            adapters.check_function(ex)(answer, hidden=hidden)
    except Exception as err:  # noqa: BLE001 - the check's verdict, whatever its type
        return f"{type(err).__name__}: {err}"
    return ""


@pytest.mark.parametrize("ex", EXERCISES)
def test_a_returned_string_is_not_quoted_on_hidden_cases(ex):
    for answer in (returns_mark, returns_marks, returns_named, Marked):
        for hidden, phase in ((True, False), (False, True)):
            message = _message(ex, answer, hidden, phase)
            assert MARK not in message and MARK.replace("-", "_") not in message, \
                (ex, answer.__name__, hidden, phase, message)


def test_a_returned_string_is_quoted_on_visible_cases():
    """The probe can fail: on visible cases some checks say what the answer returned."""
    quoted = [ex for ex in EXERCISES for answer in (returns_mark, Marked)
              if MARK in _message(ex, answer, hidden=False)]
    assert len(quoted) >= 3, quoted
