"""Where a simulation's requests come from: ``OpenLoop`` (fixed arrival times) or ``Closed``
(``ClosedLoop`` clients that send again ``think_ms`` after each answer). The event loop asks
a source for its next arrival time, the requests that have arrived, and tells it which
finished."""
from __future__ import annotations

import heapq
import math
from typing import Sequence

import numpy as np

from ..traffic import ClosedLoop, Request


def source_of(traffic: Sequence[Request] | ClosedLoop) -> "OpenLoop | Closed":
    return Closed(traffic) if isinstance(traffic, ClosedLoop) else OpenLoop(traffic)


class OpenLoop:
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


class Closed:
    """``ClosedLoop`` clients: each sends its next request ``think_ms`` after an answer."""

    def __init__(self, loop: ClosedLoop):
        self.loop, self.total = loop, loop.n
        first = min(loop.clients, loop.n)
        self.pending = [(0.0, c, c) for c in range(first)]  # (send time, request id, client)
        heapq.heapify(self.pending)
        self.issued, self.client_of = first, {}
        self.slot = Identity()

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


class Identity(dict):
    def __missing__(self, key):
        return key
