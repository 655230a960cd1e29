"""Queueing theory: offered load ρ, the mean wait of M/G/1 (Pollaczek–Khinchine) and of
M/G/c (several servers fed by one queue).

Requests arrive as a Poisson process at ``rate_per_s``; one server takes ``service_ms`` per
request on average, with squared coefficient of variation ``cv2`` (0: every request takes
the same time, M/D/1; 1: exponential, M/M/1). The mean time spent *waiting* in the queue:

    ρ = λ·E[S]                        (offered load, or utilisation: must be < 1)
    W_q = ρ · E[S] · (1 + cv²) / (2 · (1 − ρ))

so the wait grows like 1/(1 − ρ): at ρ = 0.9 a request waits 4.5 service times (M/D/1).

``mgc_wait_ms`` is the textbook mean wait of M/G/c: c servers fed by *one* queue. It uses
the Erlang C formula for M/M/c, scaled by (1 + cv²)/2 (Allen–Cunneen's approximation;
exact for c = 1, where it is Pollaczek–Khinchine). A router that gives each request to one
replica's queue can only approach this; joining the shortest queue comes close.
"""
from __future__ import annotations

import math

import numpy as np

from .validate import check_float, check_int


def offered_load(rate_per_s: float, service_ms: float) -> float:
    """ρ = arrival rate × mean service time (dimensionless)."""
    check_float("rate_per_s", rate_per_s, 0.0)
    check_float("service_ms", service_ms, 0.0, lo_open=True)
    return rate_per_s * service_ms / 1000.0


def capacity_per_s(service_ms: float) -> float:
    """The most requests per second one server can finish when each takes ``service_ms``."""
    check_float("service_ms", service_ms, 0.0, lo_open=True)
    return 1000.0 / service_ms



def mg1_wait_ms(rate_per_s: float, service_ms: float, cv2: float = 0.0) -> float:
    """Mean queueing wait (ms, service excluded) of M/G/1; ``inf`` when ρ ≥ 1."""
    check_float("cv2", cv2, 0.0)
    rho = offered_load(rate_per_s, service_ms)
    if rho >= 1.0:
        return math.inf
    return rho * service_ms * (1.0 + cv2) / (2.0 * (1.0 - rho))


def md1_wait_ms(rate_per_s: float, service_ms: float) -> float:
    """Mean wait of M/D/1 (every request takes exactly ``service_ms``)."""
    return mg1_wait_ms(rate_per_s, service_ms, 0.0)


def mean_latency_ms(rate_per_s: float, service_ms: float, cv2: float = 0.0) -> float:
    """Mean latency = queueing wait + service (ms)."""
    return mg1_wait_ms(rate_per_s, service_ms, cv2) + service_ms


def latency_curve(rates_per_s, service_ms: float, cv2: float = 0.0) -> np.ndarray:
    """``mean_latency_ms`` for each rate (``inf`` at or past capacity), for plotting."""
    return np.array([mean_latency_ms(float(r), service_ms, cv2) for r in rates_per_s])


def erlang_c(servers: int, offered: float) -> float:
    """Probability that an arrival must wait in M/M/c; ``offered`` = λ·E[S] (Erlangs)."""
    c = check_int("servers", servers, 1, 10_000)
    a = check_float("offered", offered, 0.0)
    if a >= c:
        return 1.0
    term, total = 1.0, 1.0  # Σ_{k<c} a^k/k!, built term by term (no factorial overflow)
    for k in range(1, c):
        term *= a / k
        total += term
    last = term * a / c / (1.0 - a / c)  # a^c/c! · 1/(1-ρ)
    return last / (total + last)


def mgc_wait_ms(rate_per_s: float, service_ms: float, servers: int, cv2: float = 0.0) -> float:
    """Mean queueing wait (ms) of M/G/c with one shared queue; ``inf`` at ρ ≥ 1."""
    check_float("rate_per_s", rate_per_s, 0.0)
    check_float("service_ms", service_ms, 0.0, lo_open=True)
    check_float("cv2", cv2, 0.0)
    a = rate_per_s * service_ms / 1000.0
    if a >= servers:
        return math.inf
    return erlang_c(servers, a) * service_ms / (servers - a) * (1.0 + cv2) / 2.0
