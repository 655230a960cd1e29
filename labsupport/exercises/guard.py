"""Run student code under a step limit: an endless loop becomes an AssertionError with a
message, instead of hanging the grader."""
from __future__ import annotations

import hashlib
import os
import secrets
import sys
import zlib

import numpy as np

STEP_LIMIT = 2_000_000  # traced Python lines per call: ~100× what a correct answer needs
GRADER_SEED_ENV = "LAB_GRADER_SEED"  # set by the grader per grading run, never shipped


def case_rng(ex: str, hidden: bool) -> np.random.Generator:
    """The random source of ``ex``'s test cases.

    Visible cases (``hidden=False``) are fixed: a student sees the same failure each run.
    Hidden cases are drawn per grading run from the grader's secret seed
    (``LAB_GRADER_SEED``, mixed with ``ex``), or from fresh entropy when it is unset, so a
    table of inputs seen in an earlier run earns nothing: every hidden case must come from
    this generator, never from a literal in the package.
    """
    if not hidden:
        return np.random.default_rng(zlib.crc32(ex.encode()))
    secret = os.environ.get(GRADER_SEED_ENV)
    if not secret:
        return np.random.default_rng(secrets.randbits(128))
    digest = hashlib.sha256(f"{secret}:{ex}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


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
