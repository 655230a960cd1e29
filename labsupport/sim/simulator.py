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

from ..batching.config import DEFAULT_POLICY
from ..batching.policies import Dispatch, Policy, make_policy, take
from ..costs import ServiceModel
from ..traffic import ClosedLoop, Request


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


class _OpenLoop:
    """Requests with fixed arrival times, in arrival order."""

    def __init__(self, traffic: Sequence[Request]):
        self.reqs = sorted(traffic, key=lambda r: r.arrival)
        ids = [r.id for r in self.reqs]
        if len(set(ids)) != len(ids):
            raise ValueError("traffic has duplicate request ids")
        self.total, self.next = len(self.reqs), 0
        self.slot = {r.id: k for k, r in enumerate(self.reqs)}

    def next_arrival(self) -> float:
        return self.reqs[self.next].arrival if self.next < self.total else math.inf

    def arrivals(self, t: float) -> list[Request]:
        """Requests that have arrived by ``t`` and were not handed out yet."""
        first = self.next
        while self.next < self.total and self.reqs[self.next].arrival <= t:
            self.next += 1
        return self.reqs[first:self.next]

    def completed(self, batch: list[Request], t: float) -> None:
        """Open-loop clients do not react to answers."""

    def order(self) -> np.ndarray:
        """Record rows in request-id order."""
        return np.array([self.slot[r.id] for r in sorted(self.reqs, key=lambda r: r.id)],
                        dtype=np.int64)


class _Closed:
    """``ClosedLoop`` clients: each sends its next request ``think_ms`` after an answer."""

    def __init__(self, loop: ClosedLoop):
        self.loop, self.total = loop, loop.n
        first = min(loop.clients, loop.n)
        self.pending = [(0.0, c, c) for c in range(first)]  # (send time, request id, client)
        heapq.heapify(self.pending)
        self.issued, self.client_of = first, {}
        self.slot = _Identity()

    def next_arrival(self) -> float:
        return self.pending[0][0] if self.pending else math.inf

    def arrivals(self, t: float) -> list[Request]:
        out = []
        while self.pending and self.pending[0][0] <= t:
            at, rid, client = heapq.heappop(self.pending)
            self.client_of[rid] = client
            out.append(Request(rid, at, self.loop.length))
        return out

    def completed(self, batch: list[Request], t: float) -> None:
        for r in batch:
            if self.issued < self.total:
                heapq.heappush(self.pending, (t + self.loop.think_ms, self.issued,
                                              self.client_of[r.id]))
                self.issued += 1

    def order(self) -> np.ndarray:
        return np.arange(self.total)


class _Identity(dict):
    def __missing__(self, key):
        return key


class _Records:
    """Per-request and per-batch columns, filled as batches start."""

    def __init__(self, total: int):
        self.arrival, self.start, self.finish, self.deadline = (
            np.full(total, np.nan) for _ in range(4))
        self.batch_of = np.full(total, -1, dtype=np.int64)
        self.length = np.zeros(total, dtype=np.int64)
        self.batches: list[tuple[float, float, int, int, int]] = []

    def batch(self, rows: list[int], batch: list[Request], start: float, end: float,
              padded: int) -> None:
        b = len(self.batches)
        self.batches.append((start, end, len(batch), padded, sum(r.length for r in batch)))
        for k, r in zip(rows, batch):
            self.arrival[k], self.start[k], self.finish[k] = r.arrival, start, end
            self.batch_of[k], self.length[k] = b, r.length
            if r.deadline is not None:
                self.deadline[k] = r.deadline

    def result(self, order: np.ndarray, policy: str) -> SimResult:
        cols = np.array(self.batches, dtype=float).reshape(-1, 5).T
        return SimResult(self.arrival[order], self.start[order], self.finish[order],
                         self.batch_of[order], self.length[order], cols[0], cols[1],
                         cols[2].astype(int), cols[3].astype(int), cols[4].astype(int),
                         self.deadline[order], policy)


def simulate(traffic: Sequence[Request] | ClosedLoop, policy: Policy | str = DEFAULT_POLICY,
             service: ServiceModel | None = None, **knobs) -> SimResult:
    """Run ``traffic`` (open-loop requests or a ``ClosedLoop``) through ``policy``.

    ``knobs`` (``max_batch``, ``max_delay_ms``, ``max_tokens``) build the policy when it is
    given by name, and must agree with it when it is an object (see ``make_policy``).
    The clock jumps from event to event: an arrival, a batch's completion, or the time the
    policy asked to be woken at. At each, the policy decides; one executor runs one batch
    at a time for ``service.cost(n, padded tokens)`` ms. While it runs, a batch the policy
    seals (``Policy.seal``) is taken from the queue and starts the moment the executor
    frees, as in the runtime; each executed batch is reported to ``Policy.observe``."""
    policy = make_policy(policy, **knobs)
    policy.reset()
    service = service or ServiceModel()
    source = _Closed(traffic) if isinstance(traffic, ClosedLoop) else _OpenLoop(traffic)
    rec = _Records(source.total)
    queue: deque[Request] = deque()
    running: list[Request] = []
    sealed: list[Request] = []  # the next batch, handed over while one runs (Policy.seal)
    busy_until, wake = math.inf, math.inf

    def start(batch: list[Request], t: float) -> float:
        padded = policy.padded_tokens(batch)
        ms = service.cost(len(batch), padded)
        rec.batch([source.slot[r.id] for r in batch], batch, t, t + ms, padded)
        policy.observe(len(batch), padded, ms)
        return t + ms

    while (t := min(source.next_arrival(), busy_until, wake)) < math.inf:
        if busy_until <= t:
            source.completed(running, t)
            running, busy_until = [], math.inf
            if sealed:
                running, sealed = sealed, []
                busy_until = start(running, t)
        queue.extend(source.arrivals(t))
        wake = math.inf
        d = policy.decide(queue, t, busy_until < math.inf) if queue else None
        while isinstance(d, Dispatch):
            if busy_until < math.inf:
                raise RuntimeError(f"{policy!r} dispatched while the executor was busy")
            running = take(queue, d, policy)
            busy_until = start(running, t)
            d = policy.decide(queue, t, True) if queue else None
        if queue and not sealed and busy_until < math.inf:
            s = policy.seal(queue, t)
            sealed = take(queue, s, policy) if s is not None else []
        if d is not None and d.until is not None:
            if d.until <= t:
                raise RuntimeError(f"{policy!r} asked to wait until {d.until} at t={t}")
            wake = d.until
    return rec.result(source.order(), getattr(policy, "name", str(policy)))
