"""Checks for notebook 01 (the naive queue): utilisation, percentiles, the M/D/1 wait."""
from __future__ import annotations

import math

import numpy as np

from ..metrics import percentiles, utilisation as _busy_share
from ..queueing import md1_wait_ms
from ..costs import MINILM_LIKE_CPU
from ..sim.simulator import simulate
from ..traffic import poisson
from .guard import case_rng, exercise_check, require_callable, student
from .plain import describe, plain, plain_number

# (policy, rate_per_s, n, seed, max_batch): the visible runs, a naive and a batched one
VISIBLE_RUNS = [("naive", 60, 400, 11, 1), ("work_conserving", 400, 600, 12, 8)]
SERVICE = MINILM_LIKE_CPU  # capacity: ~92 req/s one at a time, ~780 req/s at 8


def _runs(ex: str, hidden: bool) -> list[tuple]:
    """Visible: ``VISIBLE_RUNS``. Hidden: drawn from the grader's seed — a naive run below
    capacity and a batched run of a random policy, each with its own traffic."""
    if not hidden:
        return VISIBLE_RUNS
    rng = case_rng(ex, True)
    seeds = rng.integers(1, 2**31, 2)
    naive = ("naive", int(rng.integers(20, 90)), int(rng.integers(150, 400)), int(seeds[0]), 1)
    policy = str(rng.choice(["window", "early", "work_conserving"]))
    batched = (policy, int(rng.integers(100, 600)), int(rng.integers(200, 500)), int(seeds[1]),
               int(rng.integers(2, 17)))
    return [naive, batched]


def _res(run: tuple):
    pol, rate, n, seed, mb = run
    return simulate(poisson(rate, n, seed=seed), pol, SERVICE, max_batch=mb, max_delay_ms=5.0)


@exercise_check("ex01_1")
def check_ex01_1(obj, hidden: bool = False) -> None:
    """``obj(res) -> float``: the executor's busy share from first arrival to last finish."""
    ex = "ex01_1"
    require_callable(ex, obj, "utilisation")
    for run in _runs(ex, hidden):
        res = _res(run)
        got = plain(ex, student(ex, obj, res), "your utilisation")
        want = _busy_share(res.batch_start, res.batch_end, float(res.arrival.min()),
                           float(res.finish.max()))
        if type(got) not in (float, int):
            raise AssertionError(f"{ex}: return one number (a share between 0 and 1), got "
                                 f"{describe(got)}")
        if not 0.0 <= float(got) <= 1.0 + 1e-9:  # a saturated run is busy 100 %, float error aside
            raise AssertionError(f"{ex}: utilisation is a share of time, between 0 and 1; got "
                                 f"{float(got):.3f}. Count each batch's busy time once (from "
                                 f"batch_start to batch_end), not once per request")
        if not math.isclose(float(got), want, rel_tol=1e-6, abs_tol=1e-9):
            raise AssertionError(
                f"{ex}: for a {run[0]!r} run your utilisation is {float(got):.4f}, which "
                f"is off. Add up batch_end - batch_start over all batches and divide by the "
                f"span from the first arrival to the last finish (ms / ms)")


@exercise_check("ex01_2")
def check_ex01_2(obj, hidden: bool = False) -> None:
    """``obj(res) -> {"p50": ms, "p99": ms}`` of the per-request latency."""
    ex = "ex01_2"
    require_callable(ex, obj, "latency_percentiles")
    for run in _runs(ex, hidden):
        res = _res(run)
        got = plain(ex, student(ex, obj, res), "your percentiles")
        if type(got) is not dict or not {"p50", "p99"} <= set(got):
            raise AssertionError(f"{ex}: return a dict with keys 'p50' and 'p99', got "
                                 f"{describe(got)}")
        lat = res.finish - res.arrival
        for key, q in (("p50", 50), ("p99", 99)):
            want = float(np.percentile(lat, q))
            val = plain_number(ex, got[key], f"your {key}")
            if not math.isclose(val, want, rel_tol=1e-3):
                hint = ("latency runs from arrival to finish (queueing included), and "
                        "np.percentile takes percent (0–100): np.percentile(latency, 99)")
                raise AssertionError(f"{ex}: your {key} is {val:.2f} ms for a "
                                     f"{run[0]!r} run, which is off: {hint}")


def _md1_cases(ex: str, hidden: bool) -> tuple[list, list]:
    """(below capacity, at or past capacity) as (rate_per_s, service_ms) pairs."""
    if not hidden:
        return [(50.0, 10.0), (80.0, 10.0), (20.0, 25.0)], [(100.0, 10.0), (250.0, 5.0)]
    rng = case_rng(ex, True)
    below = []
    for rho in (rng.uniform(0.02, 0.3), rng.uniform(0.3, 0.7), rng.uniform(0.7, 0.97)):
        s = float(np.round(rng.uniform(0.5, 120.0), 2))
        below.append((float(np.round(rho * 1000.0 / s, 3)), s))
    s = float(rng.choice([1, 2, 4, 5, 8, 10, 20, 25, 40, 50]))  # 1000 / s exact: ρ = 1
    past = [(1000.0 / s, s), (float(np.round(rng.uniform(1.05, 4.0) * 1000.0 / s, 2)), s)]
    return below, past


@exercise_check("ex01_3")
def check_ex01_3(obj, hidden: bool = False) -> None:
    """``obj(rate_per_s, service_ms) -> ms``: mean M/D/1 queueing wait, inf past capacity."""
    ex = "ex01_3"
    require_callable(ex, obj, "md1_wait_ms")
    below, past = _md1_cases(ex, hidden)
    for rate, s in below:
        got = plain_number(ex, student(ex, obj, rate, s), "your wait")
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
    for rate, s in past:
        got = plain(ex, student(ex, obj, rate, s), "your wait")
        if not (type(got) is float and math.isinf(got) and got > 0):
            raise AssertionError(f"{ex}: at {rate:g}/s with {s:g} ms service the server is "
                                 f"at or past capacity (ρ ≥ 1): the queue grows without "
                                 f"bound, return math.inf; got {describe(got)}")


# exercise id -> the name the answer cell defines (tests/adapters.py reads it)
# ---- the lab's answers, for notebook 01's demo cells while an exercise is unsolved -------

def lab_busy_share(res) -> float:
    """Share (0..1) of time the model was busy, first arrival to last finish."""
    return _busy_share(res.batch_start, res.batch_end, float(res.arrival.min()),
                       float(res.finish.max()))


def lab_latency_percentiles(res) -> dict:
    """``{"p50": ms, "p99": ms}`` of the per-request latency."""
    return percentiles(res.finish - res.arrival, (50, 99))
