"""Run student code under a step limit: an endless loop becomes an AssertionError with a
message, instead of hanging the grader."""
from __future__ import annotations

import sys

STEP_LIMIT = 2_000_000  # traced Python lines per call: ~100× what a correct answer needs


class TooManySteps(AssertionError):
    pass


def require_callable(ex: str, obj, name: str) -> None:
    """AssertionError naming ``ex`` unless ``obj`` is a function (or other callable)."""
    if not callable(obj):
        raise AssertionError(f"{ex}: pass your function {name} itself, got {type(obj).__name__}")


def bounded(ex: str, fn, *args, **kw):
    """``fn(*args, **kw)`` with a step limit: an endless loop becomes an AssertionError."""
    steps = 0

    def tracer(frame, event, arg):
        nonlocal steps
        steps += 1
        if steps > STEP_LIMIT:
            raise TooManySteps(f"{ex}: your function did not finish (it ran {STEP_LIMIT:,} "
                                "steps on a small input). Look for a loop that never "
                                "advances, e.g. on an input that can never fit")
        return tracer
    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        return fn(*args, **kw)
    finally:
        sys.settrace(old)
