"""Checks for notebook 01 (the naive queue): utilisation, percentiles, the M/D/1 wait."""
from __future__ import annotations

import math

import numpy as np

from ..metrics import utilisation as _busy_share
from ..queueing import md1_wait_ms
from ..costs import ServiceModel
from ..sim.simulator import simulate
from ..traffic import poisson
from .guard import require_callable

# (policy, rate_per_s, n, seed, max_batch): a naive run and a batched one
_RUNS = [("naive", 60, 400, 11, 1), ("work_conserving", 400, 600, 12, 8),
         ("window", 150, 500, 13, 4), ("naive", 90, 300, 14, 1)]


def _res(k: int):
    pol, rate, n, seed, mb = _RUNS[k]
    return simulate(poisson(rate, n, seed=seed), pol, ServiceModel(8.0, 2.8),
                    max_batch=mb, max_delay_ms=5.0)


def _runs(hidden: bool):
    return [0, 1] if not hidden else [2, 3]


def check_ex01_1(obj, hidden: bool = False) -> None:
    """``obj(res) -> float``: the executor's busy share from first arrival to last finish."""
    ex = "ex01_1"
    require_callable(ex, obj, "utilisation")
    for k in _runs(hidden):
        res = _res(k)
        got = obj(res)
        want = _busy_share(res.batch_start, res.batch_end, float(res.arrival.min()),
                           float(res.finish.max()))
        if not isinstance(got, (float, int, np.floating, np.integer)):
            raise AssertionError(f"{ex}: return one number (a share between 0 and 1), got "
                                 f"{type(got).__name__}")
        if not 0.0 <= float(got) <= 1.0:
            raise AssertionError(f"{ex}: utilisation is a share of time, between 0 and 1; got "
                                 f"{float(got):.3f}. Count each batch's busy time once (from "
                                 f"batch_start to batch_end), not once per request")
        if not math.isclose(float(got), want, rel_tol=1e-6, abs_tol=1e-9):
            raise AssertionError(
                f"{ex}: for a {_RUNS[k][0]!r} run your utilisation is {float(got):.4f}, which "
                f"is off. Add up batch_end - batch_start over all batches and divide by the "
                f"span from the first arrival to the last finish (ms / ms)")


def check_ex01_2(obj, hidden: bool = False) -> None:
    """``obj(res) -> {"p50": ms, "p99": ms}`` of the per-request latency."""
    ex = "ex01_2"
    require_callable(ex, obj, "latency_percentiles")
    for k in _runs(hidden):
        res = _res(k)
        got = obj(res)
        if not isinstance(got, dict) or not {"p50", "p99"} <= set(got):
            raise AssertionError(f"{ex}: return a dict with keys 'p50' and 'p99', got {got!r}")
        lat = res.finish - res.arrival
        for key, q in (("p50", 50), ("p99", 99)):
            want = float(np.percentile(lat, q))
            val = float(got[key])
            if not math.isclose(val, want, rel_tol=1e-3):
                hint = ("latency runs from arrival to finish (queueing included), and "
                        "np.percentile takes percent (0–100): np.percentile(latency, 99)")
                raise AssertionError(f"{ex}: your {key} is {val:.2f} ms for a "
                                     f"{_RUNS[k][0]!r} run, which is off: {hint}")


def check_ex01_3(obj, hidden: bool = False) -> None:
    """``obj(rate_per_s, service_ms) -> ms``: mean M/D/1 queueing wait, inf past capacity."""
    ex = "ex01_3"
    require_callable(ex, obj, "md1_wait_ms")
    cases = [(50.0, 10.0), (80.0, 10.0), (20.0, 25.0)] if not hidden else \
        [(90.0, 10.0), (5.0, 100.0), (300.0, 3.0), (1.0, 1.0)]
    for rate, s in cases:
        got = float(obj(rate, s))
        want = md1_wait_ms(rate, s)
        if not math.isclose(got, want, rel_tol=1e-6):
            hint = ("rates are per second but service times are in ms: ρ = rate × service / "
                    "1000" if math.isinf(got) else
                    "rates are per second but service times are in ms: ρ = rate × service / "
                    "1000" if abs(got) < want / 100 or got < 0 else
                    "with a fixed service time the wait is half the M/M/1 one (cv² = 0 in "
                    "Pollaczek–Khinchine)" if math.isclose(got, 2 * want, rel_tol=1e-3) else
                    "check the formula: W = ρ·S / (2·(1 − ρ))")
            raise AssertionError(f"{ex}: at {rate:g} requests/s with {s:g} ms service you "
                                 f"predict {got:.3f} ms of waiting, which is off; {hint}")
    for rate, s in [(100.0, 10.0), (250.0, 5.0)]:
        got = obj(rate, s)
        if not (isinstance(got, (float, np.floating)) and math.isinf(got) and got > 0):
            raise AssertionError(f"{ex}: at {rate:g}/s with {s:g} ms service the server is "
                                 f"at or past capacity (ρ ≥ 1): the queue grows without "
                                 f"bound, return math.inf; got {got!r}")


# exercise id -> the name the answer cell defines (tests/adapters.py reads it)
TARGETS = {"ex01_1": "utilisation", "ex01_2": "latency_percentiles", "ex01_3": "md1_wait_ms"}
