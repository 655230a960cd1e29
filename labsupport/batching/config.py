"""The batcher's knobs, validated once: ``BatchConfig``, shared by the simulator, the runtime,
the service (its CLI, ``/config`` and exporter) and the peers, with its command-line flags
(``add_arguments`` / ``from_arguments`` / ``to_argv``)."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from ..validate import check_choice, check_float, check_int
from .shapes import check_edges

# The policy every entry point uses when none is named: a lone request never waits, and
# batches grow only while the model is busy (the lesson's window makes a lone request wait).
DEFAULT_POLICY = "work_conserving"


# What ``max_delay_ms`` means under each policy: one knob name, several meanings, so every
# surface (CLI help, explorer slider, BatchConfig, notebooks, the exporter) says which one it
# is. Each meaning starts with what the knob is: "a wait" (a lone request may wait it, as in
# Triton, TF Serving and Ray Serve), "an ageing threshold" or "unused".
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


def delay_is_a_wait(policy: str) -> bool:
    """True when ``max_delay_ms`` is a wait under ``policy`` (``DELAY_MEANING`` says so)."""
    return DELAY_MEANING[check_choice("policy", policy, DELAY_MEANING)].startswith("a wait")


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
    policy: str = DEFAULT_POLICY  # which policy decides (``batching.registry.POLICIES``)

    def __post_init__(self):
        self.max_batch = check_int("max_batch", self.max_batch, 1, 4096)
        self.max_delay_ms = check_float("max_delay_ms", self.max_delay_ms, 0.0, 60_000.0)
        self.max_queue = check_int("max_queue", self.max_queue, 1)
        self.slo_p99_ms = check_float("slo_p99_ms", self.slo_p99_ms, 0.1, 60_000.0)
        if self.max_tokens is not None:
            self.max_tokens = check_int("max_tokens", self.max_tokens, 1)
        if self.edges is not None:
            self.edges = check_edges(self.edges)
        self.policy = check_choice("policy", self.policy, DELAY_MEANING)

    @property
    def token_budget(self) -> float:
        return math.inf if self.max_tokens is None else self.max_tokens

    def to_dict(self) -> dict[str, Any]:
        """The knobs as JSON values (``edges`` a list): ``/config``, Ray's ``user_config``."""
        d = asdict(self)
        d["edges"] = None if self.edges is None else list(self.edges)
        return d


KNOBS = tuple(f.name for f in fields(BatchConfig))
_HELP = {"max_batch": "requests per batch (1-4096)", "max_delay_ms": DELAY_HELP,
         "max_queue": "texts allowed to wait; more → 429 (bounds memory and latency)",
         "max_tokens": "padded-token budget per batch (default: none)",
         "edges": "bucket edges in tokens for 'bucketed', comma-separated (default: the lab's)",
         "slo_p99_ms": "the p99 latency target (ms) 'adaptive' batches for",
         "policy": "which policy decides what to batch and when"}


def _edges(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x.strip())


_edges.__name__ = "comma-separated integer"  # argparse names it in "invalid … value"


def add_arguments(parser, defaults: BatchConfig | None = None) -> None:
    """``--max-batch``, ``--max-delay-ms``, … ``--policy`` on ``parser``: one flag per knob,
    defaults from ``defaults`` (``BatchConfig()``), checked by ``from_arguments``."""
    d = defaults or BatchConfig()
    for f in fields(BatchConfig):
        kind = {"max_batch": int, "max_queue": int, "max_tokens": int, "edges": _edges,
                "policy": str}.get(f.name, float)
        extra = {"choices": sorted(DELAY_MEANING)} if f.name == "policy" else {}
        parser.add_argument("--" + f.name.replace("_", "-"), type=kind,
                            default=getattr(d, f.name), help=_HELP[f.name], **extra)


def from_arguments(args) -> BatchConfig:
    """The ``BatchConfig`` of parsed ``add_arguments`` flags (``ValueError`` naming a bad one)."""
    return BatchConfig(**{k: getattr(args, k) for k in KNOBS})


def to_argv(cfg: BatchConfig) -> list[str]:
    """``cfg`` as the flags of ``add_arguments`` (for a child process's command line)."""
    argv = []
    for k, v in asdict(cfg).items():
        if v is not None:
            argv += ["--" + k.replace("_", "-"), ",".join(map(str, v)) if k == "edges" else str(v)]
    return argv
