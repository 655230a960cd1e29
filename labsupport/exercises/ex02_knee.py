"""Checks for notebook 02's sweep and knee exercises (ex02_7, ex02_8), and the lab's
answer to ex02_8 for demo cells (``lab_knee_delay``)."""
from __future__ import annotations

import math
from functools import partial

import numpy as np

from ..metrics import find_knee, percentiles
from ..costs import ServiceModel
from ..sim.simulator import simulate
from ..traffic import poisson
from . import casememo
from .guard import case_rng, exercise_check, require_callable, student
from .plain import describe, plain, plain_array


def reference_sweep(requests, delays_ms, *, policy, max_batch, service) -> np.ndarray:
    """p99 latency (ms) of ``requests`` through ``policy`` for each delay (the checks' truth)."""
    return np.array([percentiles(simulate(requests, policy, service, max_batch=max_batch,
                                          max_delay_ms=float(d)).latency)["p99"]
                     for d in delays_ms])


# (rate_per_s, n, seed, max_batch, fixed_ms, per_item_ms, policy, delays): the visible sweep
VISIBLE_SWEEP = (250, 1500, 3, 16, 8.0, 2.8, "window", np.arange(0, 81, 5.0))


def _sweeps(rng: np.random.Generator | None, k: int = 2) -> list[tuple]:
    """No ``rng`` (visible): ``VISIBLE_SWEEP``. Else ``k`` sweeps drawn from it."""
    if rng is None:
        return [VISIBLE_SWEEP]
    out = []
    for _ in range(k):
        step = float(rng.choice([2.0, 2.5, 5.0, 10.0]))
        delays = np.arange(0.0, step * int(rng.integers(6, 17)) + step / 2, step)
        out.append((int(rng.integers(100, 700)), int(rng.integers(500, 1300)),
                    int(rng.integers(1, 2**31)), int(rng.choice([4, 8, 16, 32])),
                    float(np.round(rng.uniform(2.0, 10.0), 2)),
                    float(np.round(rng.uniform(0.5, 3.0), 2)),
                    str(rng.choice(["window", "early", "work_conserving"])), delays))
    return out


def _sweep_cases(hidden: bool) -> list[tuple]:
    """(requests, service, sweep parameters, the lab's p99 per delay) of each sweep."""
    out = []
    for rate, n, seed, mb, fx, pi, pol, ds in _sweeps(case_rng("ex02_7", True) if hidden else None):
        reqs, svc = poisson(rate, n, seed=seed), ServiceModel(fx, pi)
        out.append((reqs, svc, (rate, mb, pol, ds),
                    reference_sweep(reqs, ds, policy=pol, max_batch=mb, service=svc)))
    return out


@exercise_check("ex02_7")
def check_ex02_7(obj, hidden: bool = False) -> None:
    ex = "ex02_7"
    require_callable(ex, obj, "p99_vs_delay")
    for reqs, svc, (rate, mb, pol, ds), want in casememo.cases(ex, "sweeps", hidden,
                                                                partial(_sweep_cases, hidden)):
        got = plain_array(ex, student(ex, obj, reqs, ds, policy=pol, max_batch=mb, service=svc),
                          "your p99 latencies")
        if got.shape != (len(ds),):
            raise AssertionError(f"{ex}: return one p99 latency per delay: expected shape "
                                 f"({len(ds)},), got {got.shape}")
        if not np.allclose(got, want, rtol=1e-6, atol=1e-6):
            i = int(np.argmax(np.abs(got - want)))
            raise AssertionError(
                f"{ex}: at max_delay_ms={ds[i]:g} ({pol!r}, {rate}/s, max_batch={mb}) your "
                f"p99 is {got[i]:.1f} ms, which does not match the simulator. Simulate with "
                f"the given policy, max_batch and service model, then take the 99th "
                f"percentile of the per-request latency (np.percentile(..., 99)).")


def _hockey(x, knee, slope, noise, seed, bend: float = 0.0):
    """Flat, then climbing after ``knee`` (linearly, or curving up with ``bend``)."""
    rng = np.random.default_rng(seed)
    past = np.where(x > knee, x - knee, 0.0)
    y = 50 + 0.1 * x + slope * past + bend * past ** 2
    return y + rng.normal(0, noise, len(x))


@exercise_check("ex02_8")
def check_ex02_8(obj, hidden: bool = False) -> None:
    ex = "ex02_8"
    require_callable(ex, obj, "knee_delay")
    cases = [(ds, want) for _, _, (_, _, _, ds), want in
             casememo.cases("ex02_7", "sweeps", False, partial(_sweep_cases, False))]
    if hidden:  # curves with one clear knee, drawn from the grader's seed
        rng = case_rng(ex, True)
        for bend in (0.0, 0.0, float(rng.uniform(0.5, 2.0))):
            top = float(rng.choice([30.0, 60.0, 100.0]))
            x = np.linspace(0, top, int(rng.integers(12, 22)))
            knee = float(rng.uniform(0.3, 0.7) * top)
            cases.append((x, _hockey(x, knee, float(rng.uniform(20.0, 80.0)) * 100.0 / top,
                                     float(rng.uniform(0.1, 0.3)), int(rng.integers(1, 2**31)),
                                     bend * 100.0 / top)))
    for ds, lat in cases:
        got = plain(ex, student(ex, obj, np.array(ds), np.array(lat)), "your knee")
        if type(got) not in (int, float) or not math.isfinite(got):
            raise AssertionError(f"{ex}: return the knee as one delay in ms (a number taken "
                                 f"from delays_ms), got {describe(got)}")
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


def lab_knee_delay(delays_ms, latency_ms) -> float:
    """The lab's answer to ex02_8 (for demo cells): the delay at ``find_knee``'s knee."""
    return float(delays_ms[find_knee(delays_ms, latency_ms)])
