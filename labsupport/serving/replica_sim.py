"""Several batching replicas behind a router, on a virtual clock; and M/G/c theory.

``simulate_replicas`` gives each request to a replica chosen by the router's own picker
(``router.make_picker``): the same ``pick(outstanding)`` call as the live router. Each replica
has its own queue and its own batching policy (``labsupport.batching.policies``), and is asked
``decide(queue, now, busy)`` as in ``labsupport.sim.simulator``. Times are ms.

``mgc_wait_ms`` is the textbook mean wait of M/G/c: c servers fed by *one* queue. It uses
the Erlang C formula for M/M/c, scaled by (1 + cv²)/2 (Allen–Cunneen's approximation;
exact for c = 1, where it is Pollaczek–Khinchine). A router that gives each request to one
replica's queue can only approach this. Joining the shortest queue comes close.
"""
from __future__ import annotations

import math
from collections import deque
from typing import Sequence

import numpy as np

from labsupport.batching.config import DEFAULT_POLICY
from labsupport.batching.policies import Dispatch, make_policy, take
from labsupport.serving.router import make_picker
from labsupport.costs import ServiceModel
from labsupport.traffic import Request
from labsupport.validate import check_float, check_int


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


def simulate_replicas(traffic: Sequence[Request], replicas: int, routing: str = "least_outstanding",
                      policy: str = DEFAULT_POLICY, service: ServiceModel | None = None,
                      seed: int = 0, **knobs) -> dict[str, np.ndarray]:
    """Run ``traffic`` through ``replicas`` batchers behind ``routing``.

    Returns arrays indexed like the sorted traffic: ``arrival``, ``finish``, ``latency``
    (ms), ``replica``; and per batch ``batch_size``. ``knobs`` build each replica's policy
    (``max_batch``, ``max_delay_ms``)."""
    n = check_int("replicas", replicas, 1, 1024)
    service = service or ServiceModel()
    picker = make_picker(routing, n, seed)
    pols = [make_policy(policy, **knobs) for _ in range(n)]
    for p in pols:
        p.reset()
    reqs = sorted(traffic, key=lambda r: r.arrival)
    total = len(reqs)
    finish, where = np.full(total, np.nan), np.full(total, -1, dtype=np.int64)
    index = {id(r): k for k, r in enumerate(reqs)}
    queues: list[deque] = [deque() for _ in range(n)]
    running: list[list] = [[] for _ in range(n)]
    busy_until, wake = [math.inf] * n, [math.inf] * n
    sizes: list[int] = []
    i, inf = 0, math.inf
    while True:
        nxt = reqs[i].arrival if i < total else inf
        t = min(nxt, min(busy_until), min(wake))
        if t == inf:
            break
        for k in range(n):
            if busy_until[k] <= t:
                for r in running[k]:
                    finish[index[id(r)]] = busy_until[k]
                running[k], busy_until[k] = [], inf
        touched = {k for k in range(n) if wake[k] <= t or not running[k]}
        while i < total and reqs[i].arrival <= t:
            outstanding = [len(queues[k]) + len(running[k]) for k in range(n)]
            k = picker.pick(outstanding)
            queues[k].append(reqs[i])
            where[i] = k
            touched.add(k)
            i += 1
        for k in touched:
            wake[k] = inf
            if busy_until[k] != inf or not queues[k]:
                continue
            d = pols[k].decide(queues[k], t, False)
            if isinstance(d, Dispatch):
                batch = take(queues[k], d, pols[k])
                busy_until[k] = t + service.cost(len(batch), pols[k].padded_tokens(batch))
                running[k] = batch
                sizes.append(len(batch))
            elif d.until is not None:
                wake[k] = d.until
    arrival = np.array([r.arrival for r in reqs])
    return {"arrival": arrival, "finish": finish, "latency": finish - arrival,
            "replica": where, "batch_size": np.asarray(sizes, int)}
