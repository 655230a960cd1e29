"""``labsupport export``: the lab's knobs as production configuration.

The same two numbers — ``max_batch`` and ``max_delay_ms`` — become a Triton model-config
``dynamic_batching`` block, a TF Serving batching parameters file and a Ray Serve
``@serve.batch`` decorator. Same numbers, not the same behaviour: ``TABLE`` says when each
system starts the wait clock and what a lone request on an idle server does (facts read
from each system's source and docs, 2026).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from ...batching.config import DELAY_HELP, BatchConfig
from ...batching.policies import POLICIES
from ...validate import check_choice, check_int

SYSTEMS = ("triton", "tf_serving", "ray_serve")


@dataclass(frozen=True)
class Knobs:
    """What gets exported. ``max_queue`` (texts allowed to wait) maps to each system's
    overload control; ``preferred`` to Triton's preferred batch sizes (optional);
    ``policy`` says what ``max_delay_ms`` means in the lab (see ``delay_us``)."""
    max_batch: int = BatchConfig.max_batch
    max_delay_ms: float = BatchConfig.max_delay_ms
    max_queue: int = BatchConfig.max_queue
    preferred: tuple[int, ...] = ()
    policy: str = "window"

    def __post_init__(self):
        BatchConfig(max_batch=self.max_batch, max_delay_ms=self.max_delay_ms,
                    max_queue=self.max_queue)  # the lab's own validation and ranges
        for p in self.preferred:
            check_int("preferred batch size", p, 1, self.max_batch)
        check_choice("policy", self.policy, POLICIES)

    @property
    def delay_us(self) -> int:
        """The exported wait (µs). Triton's, TF Serving's and Ray Serve's delay is a window:
        a lone request on an idle server waits it in full. In the lab's work-conserving and
        bucketed policies ``max_delay_ms`` is no wait at all (only a bound on how long a
        batch may grow while the model is busy, or an ageing threshold), so exporting it as
        a window would make every lone request wait: those policies export 0, the setting
        closest to "idle → go now" (the busy-time growth comes from the queue itself)."""
        if self.policy in ("work_conserving", "bucketed", "naive"):
            return 0
        return int(round(self.max_delay_ms * 1000))


def _why(k: Knobs, mark: str) -> str:
    """A trailing comment when the exported delay is 0 although ``max_delay_ms`` is not."""
    if k.delay_us == 0 and k.max_delay_ms > 0:
        return (f"  {mark} 0, not {k.max_delay_ms:g} ms: the lab's {k.policy} policy never "
                f"makes a lone request wait; a delay here would make every lone request on "
                f"an idle server wait it in full.")
    return ""


def triton(k: Knobs, name: str = "minilm") -> str:
    """A Triton ``config.pbtxt`` (the batching part; inputs/outputs omitted)."""
    pref = f"\n  preferred_batch_size: [ {', '.join(map(str, k.preferred))} ]" if k.preferred else ""
    return (f'name: "{name}"\nmax_batch_size: {k.max_batch}\n'
            f"dynamic_batching {{{pref}\n"
            f"  max_queue_delay_microseconds: {k.delay_us}{_why(k, '#')}\n"
            f"  default_queue_policy {{\n"
            f"    max_queue_size: {k.max_queue}\n"
            f"    timeout_action: REJECT\n"
            f"  }}\n}}\n")


def tf_serving(k: Knobs, threads: int = 1) -> str:
    """A TF Serving ``--batching_parameters_file`` (text protobuf)."""
    batches = max(1, math.ceil(k.max_queue / k.max_batch))
    allowed = "".join(f"allowed_batch_sizes: {p}\n" for p in sorted(set(k.preferred) |
                                                                     {k.max_batch})) \
        if k.preferred else ""
    return (f"max_batch_size {{ value: {k.max_batch} }}\n"
            f"batch_timeout_micros {{ value: {k.delay_us} }}{_why(k, '#')}\n"
            f"max_enqueued_batches {{ value: {batches} }}\n"
            f"num_batch_threads {{ value: {threads} }}\n{allowed}")


def ray_max_ongoing(max_batch: int) -> int:
    """Ray Serve's ``max_ongoing_requests`` for batches of ``max_batch``: two full batches
    (Ray's default of 5 would cap every batch at 5 requests)."""
    return max(2 * max_batch, 5)


def ray_serve(k: Knobs) -> str:
    """The Ray Serve deployment and ``@serve.batch`` lines."""
    return (f"@serve.deployment(max_ongoing_requests={ray_max_ongoing(k.max_batch)})"
            f"  # Ray's default of 5 would cap every batch at 5 requests.\n"
            f"class Embedder:\n"
            f"    @serve.batch(max_batch_size={k.max_batch}, "
            f"batch_wait_timeout_s={k.delay_us / 1e6:g}){_why(k, '#')}\n"
            f"    async def __call__(self, texts: list[str]) -> list[list[float]]: ...\n")


def export(knobs: Knobs, name: str = "minilm") -> dict[str, str]:
    return {"triton": triton(knobs, name), "tf_serving": tf_serving(knobs),
            "ray_serve": ray_serve(knobs)}


FILENAMES = {"triton": "config.pbtxt", "tf_serving": "batching_parameters.txt",
             "ray_serve": "ray_serve_batch.py"}

# How each system reads the same knobs (anchors: Triton, TF Serving, Ray Serve docs/source).
TABLE: list[dict[str, str]] = [
    {"": "size knob", "labsupport": "max_batch", "Triton": "max_batch_size",
     "TF Serving": "max_batch_size", "Ray Serve": "max_batch_size (default 10)"},
    {"": "wait knob", "labsupport": "max_delay_ms",
     "Triton": "max_queue_delay_microseconds (default 0)",
     "TF Serving": "batch_timeout_micros (default 0)",
     "Ray Serve": "batch_wait_timeout_s (default 0.01)"},
    {"": "wait clock starts", "labsupport": "oldest request's arrival",
     "Triton": "oldest request's arrival", "TF Serving": "first task in the open batch",
     "Ray Serve": "when the loop takes the first item (dequeue, not arrival)"},
    {"": "lone request, idle server", "labsupport": "work_conserving: goes at once",
     "Triton": "waits the full delay if > 0", "TF Serving": "waits the full timeout if > 0",
     "Ray Serve": "waits the full timeout (10 ms by default)"},
    {"": "while the model is busy", "labsupport": "batch keeps growing (up to max_batch)",
     "Triton": "batch keeps growing until it starts",
     "TF Serving": "tasks pile into the open batch",
     "Ray Serve": "next batch sealed on its own timer"},
    {"": "overload", "labsupport": "max_queue → 429 at once",
     "Triton": "queue policy max_queue_size, REJECT / DELAY, timeouts",
     "TF Serving": "max_enqueued_batches → UNAVAILABLE",
     "Ray Serve": "max_ongoing_requests (default 5) per replica"},
]


def table_markdown() -> str:
    cols = list(TABLE[0])
    rows = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    rows += ["| " + " | ".join(r[c] for c in cols) + " |" for r in TABLE]
    return "\n".join(rows)


def table_text() -> str:
    cols = list(TABLE[0])
    width = {c: max(len(c), *(len(r[c]) for r in TABLE)) for c in cols}
    line = lambda r: "  ".join(r[c].ljust(width[c]) for c in cols).rstrip()
    return "\n".join([line({c: c for c in cols})] + [line(r) for r in TABLE])


def knobs_from_service(url: str) -> Knobs:
    """Read the knobs of a running ``labsupport serve`` (loopback only)."""
    from ..net import get_config
    cfg = get_config(url)
    return Knobs(cfg["max_batch"], cfg["max_delay_ms"], cfg["max_queue"],
                 policy=cfg.get("policy", "window"))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="labsupport export", description=__doc__.split("\n\n")[0])
    p.add_argument("--max-batch", type=int, default=Knobs.max_batch)
    p.add_argument("--max-delay-ms", type=float, default=Knobs.max_delay_ms, help=DELAY_HELP)
    p.add_argument("--max-queue", type=int, default=Knobs.max_queue)
    p.add_argument("--policy", choices=POLICIES, default=Knobs.policy,
                   help="the lab policy the knobs come from (work_conserving/bucketed export "
                        "delay 0)")
    p.add_argument("--preferred", type=int, nargs="*", default=[],
                   help="Triton preferred / TF Serving allowed batch sizes")
    p.add_argument("--from-url", help="take the knobs from a running service (loopback)")
    p.add_argument("--name", default="minilm", help="model name in the Triton config")
    p.add_argument("--system", choices=SYSTEMS, action="append",
                   help="only these systems (repeatable; default all)")
    p.add_argument("--out", help="write one file per system into this folder")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        knobs = knobs_from_service(args.from_url) if args.from_url else Knobs(
            args.max_batch, args.max_delay_ms, args.max_queue, tuple(args.preferred),
            args.policy)
    except ValueError as exc:
        print(f"labsupport export: {exc}", file=sys.stderr)
        return 2
    out = {s: v for s, v in export(knobs, args.name).items() if s in (args.system or SYSTEMS)}
    if args.out:
        folder = Path(args.out)
        folder.mkdir(parents=True, exist_ok=True)
        for s, text in out.items():
            (folder / FILENAMES[s]).write_text(text)
    if args.json:
        print(json.dumps({"knobs": asdict(knobs), "configs": out, "table": TABLE}, indent=1))
        return 0
    for s, text in out.items():
        print(f"# ---- {s} ({FILENAMES[s]}) ----\n{text}")
    print(table_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
