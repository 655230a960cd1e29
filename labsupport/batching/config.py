"""The batcher's knobs, validated once, shared by the simulator, the runtime and the service."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..validate import check_float, check_int
from .shapes import check_edges

# The policy every entry point uses when none is named: a lone request never waits, and
# batches grow only while the model is busy (the lesson's window makes a lone request wait).
DEFAULT_POLICY = "work_conserving"


# What ``max_delay_ms`` means under each policy: one knob name, several meanings, so every
# surface (CLI help, explorer slider, BatchConfig, notebooks) says which one it is.
DELAY_MEANING = {
    "naive": "unused: one request at a time, sent as soon as the model is free",
    "window": "a wait: the first request of a window waits it in full, even alone",
    "early": "a wait cut short: the oldest request waits at most this, a full batch goes at once",
    "work_conserving": "unused: an idle model takes the waiting requests at once",
    "bucketed": "an ageing threshold, not a wait: a bucket whose oldest request has waited "
                "this long goes first; an idle model never waits",
    "adaptive": "unused: the wait comes from slo_p99_ms and the predicted service time",
}
DELAY_HELP = ("max_delay_ms (ms) is a wait only for 'window' and 'early'; for 'bucketed' it "
              "is an ageing threshold, not a wait (an idle model never waits); unused by "
              "'naive', 'work_conserving' and 'adaptive'")


@dataclass
class BatchConfig:
    """Knobs of a request-level batcher (names follow the lesson; Triton calls them
    ``max_batch_size`` and ``max_queue_delay_microseconds``). ``max_delay_ms`` means what
    ``DELAY_MEANING[policy]`` says: a wait for "window" and "early"; for "bucketed" an
    ageing threshold, not a wait."""
    max_batch: int = 32        # 32: where MiniLM's per-sentence cost flattens on a CPU
    max_delay_ms: float = 5.0  # 5 ms: a few % of a typical 100 ms embedding SLO
    max_queue: int = 256       # ≈1–2 s of MiniLM work on a laptop: past it a 429 beats a timeout
    max_tokens: int | None = None  # padded-token budget per batch (None: no budget)
    edges: tuple[int, ...] | None = None  # bucket edges (tokens) for "bucketed"; None: default
    slo_p99_ms: float = 100.0  # latency target for "adaptive": a typical interactive embedding SLO

    def __post_init__(self):
        self.max_batch = check_int("max_batch", self.max_batch, 1, 4096)
        self.max_delay_ms = check_float("max_delay_ms", self.max_delay_ms, 0.0, 60_000.0)
        self.max_queue = check_int("max_queue", self.max_queue, 1)
        self.slo_p99_ms = check_float("slo_p99_ms", self.slo_p99_ms, 0.1, 60_000.0)
        if self.max_tokens is not None:
            self.max_tokens = check_int("max_tokens", self.max_tokens, 1)
        if self.edges is not None:
            self.edges = check_edges(self.edges)

    @property
    def token_budget(self) -> float:
        return math.inf if self.max_tokens is None else self.max_tokens
