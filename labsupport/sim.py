"""Deterministic discrete-event simulation of a batcher on a virtual clock (ms).

Arrivals × policy × service-time model → what happened to every request and batch.
It asks the same ``policies`` objects as the asyncio runtime, at every arrival, timer and
completion; one executor runs one batch at a time.
"""
from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .policies import Dispatch, Policy, make_policy
from .service_model import ServiceModel
from .traffic import ClosedLoop, Request


@dataclass
class SimResult:
    """Per request (indexed by request id) and per batch records of one run. Times in ms."""
    arrival: np.ndarray
    start: np.ndarray
    finish: np.ndarray
    batch_of: np.ndarray          # batch index of each request
    length: np.ndarray            # input tokens of each request
    batch_start: np.ndarray
    batch_end: np.ndarray
    batch_size: np.ndarray
    batch_padded: np.ndarray      # padded tokens per batch (policy.padded_tokens)
    batch_real: np.ndarray        # real tokens per batch
    deadline: np.ndarray = field(default=None)  # absolute ms, nan where none
    policy: str = ""

    @property
    def latency(self) -> np.ndarray:
        return self.finish - self.arrival

    @property
    def service(self) -> np.ndarray:
        return self.finish - self.start

    def busy_before(self, t: np.ndarray) -> np.ndarray:
        """Executor busy time (ms) accumulated before each time in ``t``."""
        s, d = self.batch_start, self.batch_end - self.batch_start
        before = np.concatenate([[0.0], np.cumsum(d)])
        k = np.searchsorted(s, t, side="right") - 1
        part = np.where(k >= 0, np.minimum(t - s[np.maximum(k, 0)], d[np.maximum(k, 0)]), 0.0)
        return before[np.maximum(k, 0)] * (k >= 0) + part

    @property
    def executor_wait(self) -> np.ndarray:
        """Time each request queued while the executor was busy with other work."""
        return self.busy_before(self.start) - self.busy_before(self.arrival)

    @property
    def window_wait(self) -> np.ndarray:
        """Time each request queued while the executor sat idle (the batcher chose to wait)."""
        return (self.start - self.arrival) - self.executor_wait


def simulate(traffic: Sequence[Request] | ClosedLoop, policy: Policy | str = "work_conserving",
             service: ServiceModel | None = None, **knobs) -> SimResult:
    """Run ``traffic`` (open-loop requests or a ``ClosedLoop``) through ``policy``.

    ``knobs`` (``max_batch``, ``max_delay_ms``, ``max_tokens``) build the policy when it is
    given by name."""
    policy = make_policy(policy, **knobs)
    policy.reset()
    service = service or ServiceModel()
    closed = traffic if isinstance(traffic, ClosedLoop) else None
    if closed:
        reqs: list[Request] = []
        pending = [(0.0, c, c) for c in range(min(closed.clients, closed.n))]
        heapq.heapify(pending)
        issued = len(pending)
        owner: dict[int, int] = {}
    else:
        reqs = sorted(traffic, key=lambda r: r.arrival)
        ids = [r.id for r in reqs]
        if len(set(ids)) != len(ids):
            raise ValueError("traffic has duplicate request ids")
    total = closed.n if closed else len(reqs)
    arr = np.full(total, np.nan); start = np.full(total, np.nan); fin = np.full(total, np.nan)
    bof = np.full(total, -1, dtype=np.int64); ln = np.zeros(total, dtype=np.int64)
    dl = np.full(total, np.nan)
    slot = {r.id: k for k, r in enumerate(reqs)} if not closed else {}
    b_start, b_end, b_size, b_pad, b_real = [], [], [], [], []

    queue: deque[Request] = deque()
    i, t, busy_until, wake = 0, 0.0, math.inf, None
    running: list[Request] = []
    inf = math.inf
    while True:
        if closed:
            next_arr = pending[0][0] if pending else inf
        else:
            next_arr = reqs[i].arrival if i < total else inf
        t = min(next_arr, busy_until, inf if wake is None else wake)
        if t == inf:
            break
        if busy_until <= t:
            busy_until = inf
            if closed:
                for r in running:
                    if issued < closed.n:
                        heapq.heappush(pending, (t + closed.think_ms, issued, owner[r.id]))
                        issued += 1
            running = []
        if closed:
            while pending and pending[0][0] <= t:
                at, rid, c = heapq.heappop(pending)
                r = Request(rid, at, closed.length)
                owner[rid] = c
                slot[rid] = rid
                queue.append(r)
        else:
            while i < total and reqs[i].arrival <= t:
                queue.append(reqs[i]); i += 1
        busy = busy_until != inf
        d = policy.decide(queue, t, busy) if queue else None
        wake = None
        while isinstance(d, Dispatch):
            if busy:
                raise RuntimeError(f"{policy!r} dispatched while the executor was busy")
            idx = d.indices
            if not idx or len(set(idx)) != len(idx) or min(idx) < 0 or max(idx) >= len(queue):
                raise RuntimeError(f"{policy!r} returned bad indices {idx!r}")
            if idx == tuple(range(len(idx))):
                running = [queue.popleft() for _ in idx]
            else:
                chosen = set(idx)
                running = [queue[k] for k in idx]
                queue = deque(q for k, q in enumerate(queue) if k not in chosen)
            n, padded = len(running), policy.padded_tokens(running)
            cost = service.cost(n, padded)
            busy_until, busy = t + cost, True
            bi = len(b_start)
            b_start.append(t); b_end.append(busy_until); b_size.append(n)
            b_pad.append(padded); b_real.append(sum(r.length for r in running))
            for r in running:
                k = slot[r.id]
                arr[k], start[k], fin[k], bof[k], ln[k] = r.arrival, t, busy_until, bi, r.length
                if r.deadline is not None:
                    dl[k] = r.deadline
            d = policy.decide(queue, t, busy) if queue else None
        if d is not None and d.until is not None:
            if d.until <= t:
                raise RuntimeError(f"{policy!r} asked to wait until {d.until} at t={t}")
            wake = d.until
    if closed:
        order = np.arange(total)
    else:
        order = np.array([slot[r.id] for r in sorted(reqs, key=lambda r: r.id)], dtype=np.int64)
    f = lambda a: np.asarray(a, dtype=float)
    return SimResult(arr[order], start[order], fin[order], bof[order], ln[order],
                     f(b_start), f(b_end), np.asarray(b_size, int), np.asarray(b_pad, int),
                     np.asarray(b_real, int), dl[order], getattr(policy, "name", str(policy)))
