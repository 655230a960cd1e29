"""A check's costly cases, built once per grading run instead of once per student.

Some checks simulate to make their cases or the lab's answers to them (ex06_6's sweeps, a
second on ex06_7's engine runs): the same work for every submission of a run, since the
hidden cases come from the run's keys (``guard.case_rng``). ``cases(ex, name, hidden,
build)`` returns ``build()``, kept (pickled) under a name tied to ``ex``'s hidden key, so a
later call in this process gets a fresh copy of it without building again.

The trusted pass hands its judges what the run's preflight built (``give``, then
``built``: the instructors' solutions, graded first, in a judge where no student code
ran): a student's judge then builds nothing the preflight built. Nothing here ever reaches
a process that runs student code: a notebook (or a grading kernel) builds its visible
cases itself, as before. Hidden cases drawn from fresh entropy (no key) are never kept.
"""
from __future__ import annotations

import hashlib
import pickle
from typing import Callable, TypeVar

T = TypeVar("T")

_GIVEN: dict[str, bytes] = {}  # handed in by the judge's grader (``give``)
_BUILT: dict[str, bytes] = {}  # built in this process


def name_of(ex: str, name: str, hidden: bool) -> str | None:
    """The memo's name of ``ex``'s cases ``name``: visible ones by name, hidden ones by the
    digest of the key they are drawn from (another run, another name); None when hidden
    cases have no key (drawn from fresh entropy: never kept)."""
    if not hidden:
        return f"{ex}/{name}/visible"
    from .guard import _key
    key = _key(ex)
    if not key:
        return None
    return f"{ex}/{name}/{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def cases(ex: str, name: str, hidden: bool, build: Callable[[], T]) -> T:
    """``build()``, built once: each call gets its own copy (a check may change it)."""
    memo = name_of(ex, name, hidden)
    if memo is None:
        return build()
    data = _GIVEN.get(memo) or _BUILT.get(memo)
    if data is None:
        value = build()
        _BUILT[memo] = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        return value
    return pickle.loads(data)


def give(memos: dict[str, bytes]) -> None:
    """In the judge, before any check: what the grader handed over (the preflight's)."""
    _GIVEN.update(memos)


def built() -> dict[str, bytes]:
    """What this process built (not given): the grader keeps the preflight's."""
    return {k: v for k, v in _BUILT.items() if k not in _GIVEN}
