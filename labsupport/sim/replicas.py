"""Several batching replicas behind a router, on a virtual clock.

``simulate_replicas`` gives each request to a replica chosen by the live router's own picker
(``batching.routing.make_picker``): the same ``pick(outstanding)`` call. Each replica
has its own queue and its own batching policy (``labsupport.batching.policies``), and is asked
``decide(queue, now, busy)`` as in ``labsupport.sim.simulator``. Times are ms.
"""
from __future__ import annotations

import math
from collections import deque
from typing import Sequence

import numpy as np

from ..batching.config import DEFAULT_POLICY
from ..batching.policies import Dispatch, make_policy, take
from ..batching.routing import make_picker
from ..costs import ServiceModel
from ..traffic import Request
from ..validate import check_int


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
