"""What every check does around the student's code: hidden cases from the grader's secret
(``case_rng``), a step limit (``bounded``: an endless loop becomes an AssertionError with a
message, instead of hanging the grader), one gateway for calling the student's code
(``student``: the trusted pass watches it for the lab's reference implementations there and
records what it gave back for the judge), and the release stub seen as "not attempted"
(``exercise_check``). What the trusted pass changes in here is one object, ``CONTEXT``
(``GradingContext``), swapped in with ``grading(...)``; outside grading its fields are
all unset."""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import os
import secrets
import sys
import zlib
from typing import Any, Callable, Iterator, Mapping

import numpy as np

from ..paths import autograde_mode

STEP_LIMIT = 2_000_000  # traced Python lines per call: ~100× what a correct answer needs
GRADER_SEED_ENV = "LAB_GRADER_SEED"  # set by the grader per grading run, never shipped


@dataclasses.dataclass(frozen=True)
class GradingContext:
    """What the trusted pass (``labgrader.trusted``) sets around the checks; all unset in a
    notebook. Frozen and swapped whole (``set_grading``, ``grading``); the trusted pass's
    fingerprint holds the ids of its fields, so a change made by a student's code shows."""
    secret: str | None = None  # the run's seed, where the grader itself draws cases; wins
    #                            over the environment (a cell can rewrite that)
    keys: Mapping[str, str] | None = None  # exercise id -> ``hidden_key``: what a process
    #                            that runs student code holds instead of the seed
    tape: Any = None           # ``labgrader.tape.Tape``: the record of what the student's
    #                            calls gave back, or in the judge the record read back
    watch: Callable[[str], Any] | None = None  # ``watch(ex)``: a context manager around each
    #                            call of the student's code (the reference tripwire)
    on_limit: Callable[[str], None] | None = None  # ``on_limit(message)``: the step limit was
    #                            hit; ends the item as failed at once
    on_reference: Callable[[str], None] | None = None  # ``on_reference(ref)``: the student's
    #                            code called a stub of the lab's implementation (``unavailable``)
    checks_off: bool = False   # the trusted pass's student process: a check called there (an
    #                            answer cell's own self-test) does nothing; the judge runs them


CONTEXT = GradingContext()


def set_grading(**fields) -> GradingContext:
    """Make a copy of ``CONTEXT`` with ``fields`` changed (``GradingContext``'s names) the
    one the checks see, for good (the trusted pass's helper and child, which never go back)."""
    global CONTEXT
    CONTEXT = dataclasses.replace(CONTEXT, **fields)
    return CONTEXT


@contextlib.contextmanager
def grading(**fields) -> Iterator[GradingContext]:
    """``set_grading(**fields)`` inside the block, the context before restored after it."""
    global CONTEXT
    before = CONTEXT
    try:
        yield set_grading(**fields)
    finally:
        CONTEXT = before


def hidden_key(secret: str, ex: str) -> str:
    """The key ``ex``'s hidden cases are drawn from (hex): one exercise's, never the seed."""
    return hashlib.sha256(f"{secret}:{ex}".encode()).hexdigest()


def _key(ex: str) -> str | None:
    if CONTEXT.keys is not None:
        return CONTEXT.keys.get(ex)
    secret = CONTEXT.secret or os.environ.get(GRADER_SEED_ENV)
    return hidden_key(secret, ex) if secret else None


def case_rng(ex: str, hidden: bool) -> np.random.Generator:
    """The random source of ``ex``'s test cases.

    Visible cases (``hidden=False``) are fixed: a student sees the same failure each run.
    Hidden cases are drawn per grading run from ``ex``'s key (``hidden_key``: the grader's
    secret seed ``LAB_GRADER_SEED`` mixed with ``ex``), or from fresh entropy when there is
    none, so a table of inputs seen in an earlier run earns nothing: every hidden case must
    come from this generator, never from a literal in the package. A process that runs
    student code never holds the seed, only keys: pinned in ``CONTEXT.keys`` (the trusted
    pass; the grading kernel has none: it runs the visible cases alone).
    """
    if not hidden:
        return np.random.default_rng(zlib.crc32(ex.encode()))
    key = _key(ex)
    if not key:
        return np.random.default_rng(secrets.randbits(128))
    return np.random.default_rng(int(key[:32], 16))


class TooManySteps(AssertionError):
    pass


class LabWords(AssertionError):
    """A check's message in the lab's words alone, with no value the student's code chose:
    a verdict on hidden cases shows it as it is (``labgrader.trusted``), where any other
    message is replaced by a fixed one."""


def require_callable(ex: str, obj, name: str) -> None:
    """AssertionError naming ``ex`` unless ``obj`` is a function (or other callable)."""
    if not callable(obj):
        raise AssertionError(f"{ex}: pass your function {name} itself, got "
                             f"{type.__dict__['__name__'].__get__(type(obj), type)}")


def student(ex: str, fn, *args, **kw):
    """``fn(*args, **kw)``: the student's code, called by ``ex``'s check. Every check calls
    the student's function or class through here: in the trusted pass the judge sends the
    call to the student process (``CONTEXT.tape``: ``labgrader.tape.Remote``), where it runs
    watched (``CONTEXT.watch``) and what it gave back is recorded for the judge."""
    tape = CONTEXT.tape
    if tape is not None and tape.armed:
        return tape.call(ex, fn, args, kw)
    return watched(ex, fn, args, kw)


def driver(ex: str, fn, *args, **kw):
    """``fn(*args, **kw)``: a lab function that runs the student's code (through
    ``student`` or ``bounded``) and returns plain values, recorded as one call. Only the
    student's calls inside are watched for the lab's own implementations: the driver
    itself may use them (the real scheduler around a student's rule)."""
    tape = CONTEXT.tape
    if tape is not None and tape.armed:
        return tape.call(ex, fn, args, kw, watched=False)
    return fn(*args, **kw)


def watched(ex: str, fn, args: tuple, kw: dict):
    """``fn(*args, **kw)`` under ``CONTEXT.watch(ex)`` when one is set."""
    watch = CONTEXT.watch
    if watch is None:
        return fn(*args, **kw)
    with watch(ex):
        return fn(*args, **kw)


class NotAvailable(RuntimeError):
    """A stub of the lab's own implementation was called: in the trusted pass's student
    process it is not there while its exercise is graded (``labgrader.view``)."""


def unavailable(ref: str) -> NotAvailable:
    """What a stub raises (``labgrader.view`` writes ``raise guard.unavailable(ref)`` as the
    body of each reference there); the judge hears of the call first
    (``CONTEXT.on_reference``)."""
    hook = CONTEXT.on_reference
    if hook is not None:
        hook(ref)
    return NotAvailable(f"{ref}: not available while this exercise is graded")


class Tampered(BaseException):
    """The student's code changed what a check or a driver relies on (the grading
    machinery, a rule a driver plugged in): the item is marked, not just failed. Not an
    Exception, so a check's ``except Exception`` lets it by; never recorded as a call's
    outcome (``labgrader.tape.Tape``)."""


def bounded(ex: str, fn, *args, **kw):
    """``fn(*args, **kw)`` with a step limit: an endless loop becomes an AssertionError
    (in the trusted pass: the item fails at once, ``CONTEXT.on_limit``: a tracer that raises
    is switched off by Python, and the tripwire with it, so the student's code must not run
    on after that)."""
    ctx = CONTEXT
    tape, on_limit = ctx.tape, ctx.on_limit
    if tape is not None and tape.remote:  # the judge: the call runs in the student process,
        return tape.call(ex, fn, args, kw, bounded=True)  # under the step limit there
    steps = 0

    def tracer(frame, event, arg):
        nonlocal steps
        steps += 1
        if steps > STEP_LIMIT:
            message = (f"{ex}: your function did not finish (it ran {STEP_LIMIT:,} steps on a "
                       "small input). Look for a loop that never advances, e.g. on an input "
                       "that can never fit")
            if on_limit is not None:
                on_limit(message)
            raise TooManySteps(message)
        return tracer
    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        return student(ex, fn, *args, **kw)
    finally:
        sys.settrace(old)


# ---- the release stub: "not attempted" ------------------------------------------------

class NotAttempted(AssertionError):
    """Under autograde: the answer cell still holds the release stub (scores 0)."""


def is_stub(ex: str, obj) -> bool:
    """Whether ``obj`` is the release stub's ``NotImplementedError("<ex>: …")`` (raised by
    the stub, or bound to the answer's name by it)."""
    if type(obj) is not NotImplementedError or not obj.args:
        return False
    first = obj.args[0]
    return type(first) is str and first.startswith(f"{ex}:")


def not_attempted(ex: str) -> None:
    """Outside autograde: say so and go on (Run All reaches the end of an unsolved
    notebook). Under autograde: ``NotAttempted``, so the item scores 0."""
    if autograde_mode():
        raise NotAttempted(f"{ex}: not attempted (the answer cell still holds the stub)")
    print(f"{ex} not attempted yet")


def exercise_check(ex: str):
    """Decorator of ``check_<ex>(obj, hidden=False)``: an answer still at the release stub
    is "not attempted" (``not_attempted``); anything else is checked. The undecorated
    check stays reachable as ``check.__wrapped__`` (the notebooks' fallbacks use it)."""
    def decorate(check):
        @functools.wraps(check)
        def checked(obj, hidden: bool = False, **kw):
            __tracebackhide__ = True
            if CONTEXT.checks_off:  # its references are stubs there: it would call them
                return None
            if is_stub(ex, obj):
                return not_attempted(ex)
            try:
                return check(obj, hidden, **kw)
            except NotImplementedError as err:
                if not is_stub(ex, err):
                    raise
            return not_attempted(ex)
        return checked
    return decorate
