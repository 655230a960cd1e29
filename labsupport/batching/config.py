"""The batcher's knobs, validated once: ``BatchConfig``, shared by the simulator, the runtime,
the service (its CLI, ``/config`` and exporter) and the peers, with its command-line flags
(``add_arguments`` / ``from_arguments`` / ``to_argv``). Each field carries its ``Knob``
(flag type, meaning, unit, the policies it matters to, the dashboard's slider): ``knobs``
is the one list every surface derives from."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Callable

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


@dataclass(frozen=True)
class Knob:
    """One knob as every surface shows it: ``parse`` reads its flag's text, ``help`` says
    what it means, ``unit`` follows its value in a readout, ``used_by`` names the policies
    it matters to (None: all; an unused knob is left off ``/metrics`` and the readouts),
    ``slider`` is the dashboard's (min, max, step) (None: no slider), ``choices`` a menu's."""
    name: str
    default: Any
    parse: Callable[[str], Any]
    help: str
    unit: str = ""
    used_by: frozenset[str] | None = None
    slider: tuple[float, float, float] | None = None
    choices: tuple[str, ...] | None = None

    def in_use(self, policy: str) -> bool:
        """True when this knob matters under ``policy``."""
        return self.used_by is None or policy in self.used_by


def knob(default, parse, help: str, **extra):
    """A ``BatchConfig`` field that carries its ``Knob`` (the one list: ``knobs``)."""
    return field(default=default, metadata={"knob": dict(parse=parse, help=help, **extra)})


def _edges(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x.strip())


_edges.__name__ = "comma-separated integer"  # argparse names it in "invalid … value"

_WAITS = frozenset(p for p, m in DELAY_MEANING.items() if not m.startswith("unused"))


@dataclass
class BatchConfig:
    """Knobs of a request-level batcher (names follow the lesson; Triton calls them
    ``max_batch_size`` and ``max_queue_delay_microseconds``). ``max_delay_ms`` means what
    ``DELAY_MEANING[policy]`` says: a wait for "window" and "early"; for "bucketed" an
    ageing threshold, not a wait. Each field is a ``Knob`` (``knobs``): its flag, help,
    unit and the policies it matters to come from here, for every surface."""
    # 32: where MiniLM's per-sentence cost flattens on a CPU
    max_batch: int = knob(32, int, "requests per batch (1-4096)", slider=(1, 64, 1))
    # 5 ms: a few % of a typical 100 ms embedding SLO
    max_delay_ms: float = knob(5.0, float, DELAY_HELP, unit="ms", used_by=_WAITS,
                               slider=(0.0, 50.0, 1.0))
    # ≈1–2 s of MiniLM work on a laptop: past it a 429 beats a timeout
    max_queue: int = knob(256, int, "texts allowed to wait; more → 429 (bounds memory and "
                          "latency)")
    # padded-token budget per batch (None: no budget)
    max_tokens: int | None = knob(None, int, "padded-token budget per batch (default: none)")
    # bucket edges (tokens) for "bucketed"; None: the lab's default
    edges: tuple[int, ...] | None = knob(
        None, _edges, "bucket edges in tokens for 'bucketed', comma-separated (default: the "
        "lab's)", used_by=frozenset({"bucketed"}))
    # latency target for "adaptive": a typical interactive embedding SLO
    slo_p99_ms: float = knob(100.0, float, "the p99 latency target (ms) 'adaptive' batches "
                             "for", unit="ms", used_by=frozenset({"adaptive"}),
                             slider=(5.0, 500.0, 5.0))
    # which policy decides (``batching.registry.POLICIES``)
    policy: str = knob(DEFAULT_POLICY, str, "which policy decides what to batch and when",
                       choices=tuple(sorted(DELAY_MEANING)))

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


def knobs(cls: type | None = None) -> tuple[Knob, ...]:
    """The knobs of ``cls`` (default ``BatchConfig``), in field order: what ``/metrics``, the
    dashboard, every CLI, the peers' argv, ``MicroBatcher`` and the exporter show."""
    return tuple(Knob(f.name, f.default, **f.metadata["knob"])
                 for f in fields(cls or BatchConfig))


def knob_names(cls: type | None = None) -> tuple[str, ...]:
    return tuple(k.name for k in knobs(cls))


def in_use(cfg: BatchConfig | dict) -> dict[str, Any]:
    """``cfg``'s knobs (a ``BatchConfig``, or its ``to_dict`` as ``/config`` answers) that
    matter under its policy and are set (not None), in field order: what a readout or
    ``/metrics`` shows (no unused delay, the SLO under ``adaptive``)."""
    if isinstance(cfg, dict):
        return {k.name: cfg[k.name] for k in knobs()
                if k.in_use(cfg["policy"]) and cfg.get(k.name) is not None}
    return {k.name: getattr(cfg, k.name) for k in knobs(type(cfg))
            if k.in_use(cfg.policy) and getattr(cfg, k.name) is not None}


def add_arguments(parser, defaults: BatchConfig | None = None) -> None:
    """``--max-batch``, ``--max-delay-ms``, … ``--policy`` on ``parser``: one flag per knob
    (``knobs``), defaults from ``defaults`` where it has them (``BatchConfig()``), checked
    by ``from_arguments``."""
    d = defaults or BatchConfig()
    for k in knobs():
        extra = {"choices": k.choices} if k.choices else {}
        parser.add_argument("--" + k.name.replace("_", "-"), type=k.parse,
                            default=getattr(d, k.name, k.default), help=k.help, **extra)


def from_arguments(args, cls: type | None = None) -> BatchConfig:
    """The ``BatchConfig`` (or ``cls``) of parsed ``add_arguments`` flags (``ValueError``
    naming a bad one)."""
    cls = cls or BatchConfig
    return cls(**{k: getattr(args, k) for k in knob_names(cls)})


def to_argv(cfg: BatchConfig) -> list[str]:
    """``cfg`` as the flags of ``add_arguments`` (for a child process's command line)."""
    argv = []
    for k in knobs(type(cfg)):
        v = getattr(cfg, k.name)
        if v is not None:
            argv += ["--" + k.name.replace("_", "-"),
                     ",".join(map(str, v)) if isinstance(v, tuple) else str(v)]
    return argv
