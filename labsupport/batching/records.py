"""What a ``MicroBatcher`` records: one ``BatchRecord`` per executed batch, and the
counters in ``BatcherStats`` (a dashboard or a test reads them)."""
from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field


@dataclass
class BatchRecord:
    """One executed batch: sizes, padded/real tokens, and the requests' waits (ms)."""
    size: int
    padded_tokens: int
    real_tokens: int
    start_ms: float
    end_ms: float
    waits_ms: list[float]
    ok: bool


@dataclass
class BatcherStats:
    """Counters a dashboard or a test can read. ``history`` keeps the last batches."""
    submitted: int = 0
    completed: int = 0
    failed: int = 0
    rejected: int = 0
    cancelled: int = 0
    batches: int = 0
    batch_sizes: Counter = field(default_factory=Counter)
    history: deque = field(default_factory=lambda: deque(maxlen=2048))
