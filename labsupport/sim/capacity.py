"""The highest load a batching configuration serves within a p99 latency SLO (simulated).

A grid of offered rates answers "which of these rates held?", and reads 0 when even its
lowest rate misses: a working batcher then looks like a broken one. ``highest_rate`` bisects
instead, between a rate so low that requests meet an idle server and ``rate_hi``, so it
reads 0 only when a request alone, on an idle server, already misses the SLO.
"""
from __future__ import annotations

from typing import Callable, Sequence

from ..batching.policies import Policy
from ..costs import ServiceModel
from ..metrics import summarize
from ..traffic import Request
from ..validate import check_float, check_int
from .simulator import simulate


def p99_at(traffic_at: Callable[[float], Sequence[Request]], policy: Policy | str,
           service: ServiceModel, rate_per_s: float, **knobs) -> float:
    """Simulated p99 latency (ms) of ``traffic_at(rate_per_s)`` through ``policy``."""
    return summarize(simulate(traffic_at(rate_per_s), policy, service, **knobs))["p99_ms"]


def highest_rate(traffic_at: Callable[[float], Sequence[Request]], policy: Policy | str,
                 service: ServiceModel, slo_p99_ms: float, *, rate_hi: float,
                 steps: int = 12, **knobs) -> float:
    """Highest offered rate (req/s, within ``rate_hi / 2**steps``) whose simulated p99 is at
    most ``slo_p99_ms``.

    ``traffic_at(rate)`` makes the requests at a mean rate (keep its seed fixed, so only the
    time scale changes between rates); ``knobs`` go to ``simulate``. Returns ``rate_hi``
    when that rate still holds, and 0.0 only when the lowest rate tried
    (``rate_hi / 2**steps``: requests almost never meet) misses the SLO.
    """
    check_float("slo_p99_ms", slo_p99_ms, 0.0, lo_open=True)
    check_float("rate_hi", rate_hi, 0.0, lo_open=True)
    check_int("steps", steps, 1, 40)
    if p99_at(traffic_at, policy, service, rate_hi, **knobs) <= slo_p99_ms:
        return float(rate_hi)
    lo, hi = rate_hi / 2 ** steps, float(rate_hi)
    if p99_at(traffic_at, policy, service, lo, **knobs) > slo_p99_ms:
        return 0.0
    for _ in range(steps):
        mid = (lo + hi) / 2
        if p99_at(traffic_at, policy, service, mid, **knobs) <= slo_p99_ms:
            lo = mid
        else:
            hi = mid
    return lo
