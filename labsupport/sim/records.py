"""What a simulation run recorded: ``SimResult``, per request (indexed by request id) and per
batch, filled by ``Records`` as batches start. Times in ms."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


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
    replica: np.ndarray = field(default=None)        # the replica that served each request
    batch_replica: np.ndarray = field(default=None)  # the replica that ran each batch

    def __post_init__(self):
        if self.replica is None:  # one executor
            self.replica = np.zeros(len(self.arrival), dtype=np.int64)
            self.batch_replica = np.zeros(len(self.batch_start), dtype=np.int64)

    @property
    def latency(self) -> np.ndarray:
        return self.finish - self.arrival

    @property
    def service(self) -> np.ndarray:
        return self.finish - self.start

    def busy_before(self, t: np.ndarray, replica: int = 0) -> np.ndarray:
        """Busy time (ms) of ``replica``'s executor accumulated before each time in ``t``."""
        mine = self.batch_replica == replica
        s, d = self.batch_start[mine], (self.batch_end - self.batch_start)[mine]
        if not len(s):
            return np.zeros(np.shape(t))
        before = np.concatenate([[0.0], np.cumsum(d)])
        k = np.searchsorted(s, t, side="right") - 1
        part = np.where(k >= 0, np.minimum(t - s[np.maximum(k, 0)], d[np.maximum(k, 0)]), 0.0)
        return before[np.maximum(k, 0)] * (k >= 0) + part

    @property
    def executor_wait(self) -> np.ndarray:
        """Time each request queued while its executor was busy with other work."""
        out = np.zeros(len(self.arrival))
        for r in np.unique(self.replica):
            m = self.replica == r
            out[m] = self.busy_before(self.start[m], r) - self.busy_before(self.arrival[m], r)
        return out

    @property
    def window_wait(self) -> np.ndarray:
        """Time each request queued while its executor sat idle (the batcher chose to wait)."""
        return (self.start - self.arrival) - self.executor_wait


class Records:
    """Per-request and per-batch columns, filled as batches start."""

    def __init__(self, total: int):
        self.arrival, self.start, self.finish, self.deadline = (
            np.full(total, np.nan) for _ in range(4))
        self.batch_of = np.full(total, -1, dtype=np.int64)
        self.replica = np.full(total, -1, dtype=np.int64)
        self.length = np.zeros(total, dtype=np.int64)
        self.batches: list[tuple[float, float, int, int, int, int]] = []

    def batch(self, rows: list[int], batch: list, start: float, end: float, padded: int,
              replica: int = 0) -> None:
        b = len(self.batches)
        self.batches.append((start, end, len(batch), padded, sum(r.length for r in batch),
                             replica))
        for k, r in zip(rows, batch):
            self.arrival[k], self.start[k], self.finish[k] = r.arrival, start, end
            self.batch_of[k], self.length[k], self.replica[k] = b, r.length, replica
            if r.deadline is not None:
                self.deadline[k] = r.deadline

    def result(self, order: np.ndarray, policy: str) -> SimResult:
        cols = np.array(self.batches, dtype=float).reshape(-1, 6).T
        return SimResult(self.arrival[order], self.start[order], self.finish[order],
                         self.batch_of[order], self.length[order], cols[0], cols[1],
                         cols[2].astype(int), cols[3].astype(int), cols[4].astype(int),
                         self.deadline[order], policy, self.replica[order],
                         cols[5].astype(np.int64))
