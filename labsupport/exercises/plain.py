"""Plain values: what a check compares, never a student's own object.

A check must not call a method of an object the student's code made: ``got == want`` on a
``str`` subclass runs the subclass's ``__eq__`` (always true, or one that patches the check
while it runs). ``plain(ex, value)`` turns a result into exact builtin types — or an
AssertionError naming the type — *before* any comparison, looking only at ``type(v)``, so
no code of the student's runs while a check decides. ``describe`` writes a value into a
message the same way.
"""
from __future__ import annotations

from typing import Any

import numpy as np

SCALARS = (bool, int, float, str, type(None), complex)
NUMPY_SCALARS = (np.bool_, np.float16, np.float32, np.float64, np.int8, np.int16, np.int32,
                 np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
# Types are looked up by identity (``id``), never with ``==`` or a hash: a class whose
# metaclass answers ``==`` with True must not pass for ``float``.
_SCALAR_IDS = {id(t): t for t in SCALARS}
_NUMPY_IDS = {id(t): t for t in NUMPY_SCALARS}
_generic_item = np.generic.item  # unbound: a value's own ``item`` never runs


def is_scalar(t: type) -> bool:
    """``t`` is exactly one of ``SCALARS``."""
    return _SCALAR_IDS.get(id(t)) is t


def is_numpy_scalar(t: type) -> bool:
    """``t`` is exactly one of ``NUMPY_SCALARS``."""
    return _NUMPY_IDS.get(id(t)) is t
MAX_ITEMS = 1_000_000  # a result bigger than this is not an answer to any check here


def class_name(cls: type) -> str:
    """``cls.__name__`` without running a metaclass's code."""
    return type.__dict__["__name__"].__get__(cls, type)


def type_name(v: Any) -> str:
    """``type(v).__name__`` without running a metaclass's code."""
    return class_name(type(v))


def describe(v: Any, width: int = 80) -> str:
    """A short text for a message: the value when plain, else only its type's name."""
    t = type(v)
    if is_scalar(t):
        return repr(v)[:width]
    if is_numpy_scalar(t):
        return repr(_generic_item(v))[:width]
    return f"<a {type_name(v)} object>"


class NotPlain(AssertionError):
    """A result is not made of plain builtin values (its message says which part)."""


def _reject(ex: str, where: str, v: Any) -> NotPlain:
    t = type(v)
    base = next((b.__name__ for b in (bool, int, float, str, list, tuple, dict, np.ndarray)
                 if issubclass(t, b) and t is not b), None)  # the real MRO, no student code
    kind = f"a subclass of {base}" if base else "not a builtin value"
    return NotPlain(f"{ex}: {where} is a {type_name(v)} ({kind}); return plain values "
                    "(int, float, str, bool, None, lists, tuples, dicts, numpy arrays)")


def plain(ex: str, value: Any, where: str = "your result") -> Any:
    """``value`` rebuilt from exact builtin types: scalars, numpy scalars (as Python
    numbers), lists, tuples, dicts with plain keys, and numpy arrays of numbers or bools
    (a fresh base-class copy). Anything else — a subclass included — raises ``NotPlain``."""
    count = [0]

    def walk(v: Any, at: str) -> Any:
        count[0] += 1
        if count[0] > MAX_ITEMS:
            raise NotPlain(f"{ex}: {where} holds more than {MAX_ITEMS:,} values")
        t = type(v)
        if is_scalar(t):
            return v
        if is_numpy_scalar(t):
            return _generic_item(v)
        if t is list or t is tuple:
            out = [walk(x, f"{at}[{i}]") for i, x in enumerate(list.__iter__(v) if t is list
                                                              else tuple.__iter__(v))]
            return out if t is list else tuple(out)
        if t is dict:
            return {walk(k, f"a key of {at}"): walk(x, f"{at}[{describe(k)}]")
                    for k, x in dict.items(v)}
        if t is np.ndarray:
            if v.dtype.kind not in "biuf":
                raise NotPlain(f"{ex}: {at} is a numpy array of {v.dtype}; use numbers")
            return np.array(v, copy=True, subok=False)
        raise _reject(ex, at, v)

    return walk(value, where)


def plain_number(ex: str, value: Any, where: str = "your result") -> float:
    """``plain`` for a single real number (bool excluded), as a float."""
    v = plain(ex, value, where)
    if type(v) is bool or type(v) not in (int, float):
        raise AssertionError(f"{ex}: {where} must be one number, got {describe(v)}")
    return float(v)


def plain_array(ex: str, value: Any, where: str = "your result") -> np.ndarray:
    """``plain`` for an array-like of numbers (list, tuple or ndarray), as a float array."""
    v = plain(ex, value, where)
    try:
        return np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"{ex}: {where} must be numbers, got {describe(v)}") from None


def describe_error(err: BaseException) -> str:
    """``Type: message`` of an exception the student's code raised, without running its
    ``__str__``: the message only when it is a plain string."""
    args = BaseException.__dict__["args"].__get__(err)
    text = args[0] if len(args) == 1 and type(args[0]) is str else ""
    return f"{type_name(err)}: {text[:200]}" if text else type_name(err)
