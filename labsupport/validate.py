"""Argument checks shared by every config: errors name the parameter and its range."""
from __future__ import annotations

import math
from numbers import Integral, Real


def check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    """Return ``value`` if it is an int in [lo, hi], else raise ValueError naming ``name``."""
    rng = f"an integer >= {lo}" if hi is None else f"an integer in [{lo}, {hi}]"
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"{name} must be {rng}, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"{name} must be {rng}, got {value!r}")
    return int(value)


def check_float(name: str, value, lo: float = 0.0, hi: float | None = None,
                lo_open: bool = False) -> float:
    """Return ``value`` as float if finite and in range, else raise ValueError naming ``name``."""
    op = ">" if lo_open else ">="
    rng = f"a finite number {op} {lo}" if hi is None else f"a finite number in [{lo}, {hi}]"
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be {rng}, got {value!r}")
    v = float(value)
    if v < lo or (lo_open and v == lo) or (hi is not None and v > hi):
        raise ValueError(f"{name} must be {rng}, got {value!r}")
    return v


def check_choice(name: str, value, choices) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ValueError listing them."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")
    return value
