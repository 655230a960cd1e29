"""The length-bucketed policy: every batch holds requests of one length bucket, so rows pad
to similar lengths (``shapes`` has the edges and the padded-token count)."""
from __future__ import annotations

from ..validate import check_int
from .config import BatchConfig
from .policies import WAIT, Dispatch, Policy
from .shapes import DEFAULT_EDGES, bucket_of, padded_tokens


class Bucketed(Policy):
    """Length buckets: every batch holds requests of one bucket (``edges``, tokens), so rows
    pad to similar lengths. Work-conserving: an idle executor goes at once, with the bucket
    that fills the biggest batch (ties: the older head). Aging: once the oldest request has
    waited ``max_delay_ms``, its bucket goes first, so no bucket starves. Each batch takes
    its bucket's oldest requests up to ``max_batch`` and the padded-token budget
    (``max_tokens``; rows pad to the batch's longest, or to the bucket edge with
    ``static=True``); a request larger than the budget goes alone rather than wait forever
    (reject it before it is queued if it must not run). Default edges:
    ``shapes.DEFAULT_EDGES``; lengths above the last edge form one overflow
    bucket. Only the oldest ``window`` requests are scanned (default 16 × ``max_batch``),
    bounding the cost of a decision under overload.
    Edges: ``cfg.edges`` (read at every decision, so a live reconfigure applies at once)."""
    name = "bucketed"

    def __init__(self, cfg: BatchConfig | None = None, static: bool = False,
                 window: int | None = None, **knobs):
        super().__init__(cfg, **knobs)
        self.static = bool(static)
        self.window = None if window is None else check_int("window", window, 1)

    @property
    def edges(self) -> tuple[int, ...]:
        """``cfg.edges`` (read live), else the default."""
        return self.cfg.edges or DEFAULT_EDGES

    def bucket(self, length: int) -> int:
        """Bucket index of ``length`` (``len(edges)`` = the overflow bucket)."""
        return bucket_of(length, self.edges)

    def padded_tokens(self, batch) -> int:
        """Tokens a batch computes: n × its longest, or n × its bucket edge when ``static``."""
        return padded_tokens([item.length for item in batch], self.edges if self.static else None)

    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        scan = min(len(queue), self.window or 16 * self.cfg.max_batch)
        edges = self.edges
        groups: dict[int, list[int]] = {}
        for k in range(scan):
            groups.setdefault(bucket_of(queue[k].length, edges), []).append(k)
        oldest = min(range(scan), key=lambda k: queue[k].arrival)
        if now - queue[oldest].arrival >= self.cfg.max_delay_ms:
            return self._fill(queue, groups[self.bucket(queue[oldest].length)])
        best = max((self._fill(queue, g) for g in groups.values()),
                   key=lambda d: (len(d.indices), -queue[d.indices[0]].arrival))
        return best

    def _fill(self, queue, members, floor: int = 0) -> Dispatch:
        """The bucket's oldest members; with ``static`` rows pad to the bucket edge."""
        first = queue[members[0]].length
        if self.static and first <= self.edges[-1]:
            floor = self.edges[self.bucket(first)]
        return super()._fill(queue, members, floor)

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, edges={self.edges})"
