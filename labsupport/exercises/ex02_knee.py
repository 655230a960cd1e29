"""Checks for notebook 02's sweep and knee exercises (ex02_7, ex02_8), re-exported by
``labsupport.exercises.ex02``."""
from __future__ import annotations

import math

import numpy as np

from ..metrics import find_knee, percentiles
from ..costs import ServiceModel
from ..sim.simulator import simulate
from ..traffic import poisson
from .guard import require_callable


def reference_sweep(requests, delays_ms, *, policy, max_batch, service) -> np.ndarray:
    """p99 latency (ms) of ``requests`` through ``policy`` for each delay (the checks' truth)."""
    return np.array([percentiles(simulate(requests, policy, service, max_batch=max_batch,
                                          max_delay_ms=float(d)).latency)["p99"]
                     for d in delays_ms])


_SWEEPS = [  # (rate_per_s, n, seed, max_batch, fixed_ms, per_item_ms, policy, delays)
    (250, 1500, 3, 16, 8.0, 2.8, "window", np.arange(0, 81, 5.0)),
    (600, 1500, 4, 16, 8.0, 1.0, "window", np.arange(0, 41, 2.5)),
    (150, 800, 5, 8, 4.0, 1.5, "early", np.array([0.0, 2, 4, 8, 16, 32])),
]


def check_ex02_7(obj, hidden: bool = False) -> None:
    ex = "ex02_7"
    require_callable(ex, obj, "p99_vs_delay")
    for rate, n, seed, mb, fx, pi, pol, ds in (_SWEEPS[1:] if hidden else _SWEEPS[:1]):
        reqs = poisson(rate, n, seed=seed)
        svc = ServiceModel(fx, pi)
        got = obj(reqs, ds, policy=pol, max_batch=mb, service=svc)
        got = np.asarray(got, dtype=float)
        if got.shape != (len(ds),):
            raise AssertionError(f"{ex}: return one p99 latency per delay: expected shape "
                                 f"({len(ds)},), got {got.shape}")
        want = reference_sweep(reqs, ds, policy=pol, max_batch=mb, service=svc)
        if not np.allclose(got, want, rtol=1e-6, atol=1e-6):
            i = int(np.argmax(np.abs(got - want)))
            raise AssertionError(
                f"{ex}: at max_delay_ms={ds[i]:g} ({pol!r}, {rate}/s, max_batch={mb}) your "
                f"p99 is {got[i]:.1f} ms, which does not match the simulator. Simulate with "
                f"the given policy, max_batch and service model, then take the 99th "
                f"percentile of the per-request latency (np.percentile(..., 99)).")


def _hockey(x, knee, slope, noise, seed):
    rng = np.random.default_rng(seed)
    y = 50 + 0.1 * x + np.where(x > knee, slope * (x - knee), 0.0)
    return y + rng.normal(0, noise, len(x))


def check_ex02_8(obj, hidden: bool = False) -> None:
    ex = "ex02_8"
    require_callable(ex, obj, "knee_delay")
    cases = []
    rate, n, seed, mb, fx, pi, pol, ds = _SWEEPS[0]
    cases.append((ds, reference_sweep(poisson(rate, n, seed=seed), ds, policy=pol,
                                      max_batch=mb, service=ServiceModel(fx, pi))))
    if hidden:
        rate, n, seed, mb, fx, pi, pol, ds = _SWEEPS[1]
        cases.append((ds, reference_sweep(poisson(rate, n, seed=seed), ds, policy=pol,
                                          max_batch=mb, service=ServiceModel(fx, pi))))
        x = np.linspace(0, 100, 21)
        cases.append((x, _hockey(x, 40.0, 30.0, 0.3, 1)))
        x = np.linspace(0, 30, 16)
        cases.append((x, _hockey(x, 22.0, 80.0, 0.2, 2)))
    for ds, lat in cases:
        got = obj(np.array(ds), np.array(lat))
        if not isinstance(got, (int, float, np.integer, np.floating)) or not math.isfinite(got):
            raise AssertionError(f"{ex}: return the knee as one delay in ms (a number taken "
                                 f"from delays_ms), got {got!r}")
        if not np.any(np.isclose(ds, float(got))):
            raise AssertionError(f"{ex}: return one of the delays you were given (ms), not an "
                                 f"index or a new value; got {got!r}")
        step = float(np.median(np.diff(ds)))
        ref = float(ds[find_knee(ds, lat)])
        span = f"delays {ds[0]:g}..{ds[-1]:g} ms"
        if abs(float(got) - ref) > 1.01 * step:
            where = "too early: latency is still flat there" if got < ref else \
                "too late: latency has already taken off there"
            raise AssertionError(f"{ex}: on a curve over {span} your knee at {got:g} ms is "
                                 f"{where}; look for the delay after which latency starts to "
                                 f"climb steeply")


