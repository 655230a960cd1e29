"""``labsupport export``: the lab's knobs as production configuration.

The same ``BatchConfig`` — ``max_batch``, ``max_delay_ms``, ``max_queue`` and the policy that
says what the delay is (``DELAY_MEANING``) — becomes a Triton model-config
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
from pathlib import Path

from ...batching.config import (DELAY_MEANING, BatchConfig, add_arguments, delay_is_a_wait,
                                from_arguments, in_use)
from ...validate import check_int

SYSTEMS = ("triton", "tf_serving", "ray_serve")


def delay_us(cfg: BatchConfig) -> int:
    """The exported wait (µs). Triton's, TF Serving's and Ray Serve's delay is a window: a
    lone request on an idle server waits it in full. Where the lab's ``max_delay_ms`` is no
    wait (``DELAY_MEANING``: unused, or an ageing threshold, as for ``work_conserving``,
    ``bucketed`` and ``adaptive``), exporting it as a window would make every lone request
    wait: those policies export 0, the setting closest to "idle → go now" (the busy-time
    growth comes from the queue itself)."""
    return int(round(cfg.max_delay_ms * 1000)) if delay_is_a_wait(cfg.policy) else 0


def peer_window_us(cfg: BatchConfig) -> int:
    """The window (µs) a peer of ``bench peers`` (Triton's ``max_queue_delay_microseconds``,
    Ray Serve's ``batch_wait_timeout_s``) runs for ``cfg``: what the exporter writes
    (``delay_us``), so a peer set up from the lab's knobs waits as an exported config would
    (0 where the lab's policy does not wait)."""
    return delay_us(cfg)


# The knobs every system here has a setting for (the policy: through ``delay_us``); any
# other knob in use (``batching.config.in_use``) is named in a note, never dropped silently.
EXPORTED = ("max_batch", "max_delay_ms", "max_queue", "policy")


def not_exported(cfg: BatchConfig) -> dict:
    """The knobs in use under ``cfg.policy`` that no exported setting carries (e.g.
    ``slo_p99_ms`` under ``adaptive``, ``max_tokens`` when set)."""
    return {k: v for k, v in in_use(cfg).items() if k not in EXPORTED}


def _left_out(cfg: BatchConfig, mark: str) -> str:
    """A leading comment naming the knobs in use that the export cannot carry."""
    rest = not_exported(cfg)
    if not rest:
        return ""
    knobs = ", ".join(f"{k}={','.join(map(str, v)) if isinstance(v, tuple) else v}"
                      for k, v in rest.items())
    return (f"{mark} not exported: {knobs} (in use under the lab's {cfg.policy} policy; "
            f"no setting here carries it)\n")


def check_preferred(cfg: BatchConfig, preferred) -> tuple[int, ...]:
    """Triton's preferred / TF Serving's allowed batch sizes: each in [1, max_batch]."""
    return tuple(check_int("preferred batch size", p, 1, cfg.max_batch) for p in preferred)


def _why(cfg: BatchConfig, mark: str) -> str:
    """A trailing comment when the exported delay is 0 although ``max_delay_ms`` is not."""
    if delay_us(cfg) == 0 and cfg.max_delay_ms > 0:
        return (f"  {mark} 0, not {cfg.max_delay_ms:g} ms: under the lab's {cfg.policy} "
                f"policy max_delay_ms is {DELAY_MEANING[cfg.policy].split(':')[0]}; a delay "
                f"here would make every lone request on an idle server wait it in full.")
    return ""


def triton(cfg: BatchConfig, name: str = "minilm", preferred=()) -> str:
    """A Triton ``config.pbtxt`` (the batching part; inputs/outputs omitted)."""
    pref = check_preferred(cfg, preferred)
    pref = f"\n  preferred_batch_size: [ {', '.join(map(str, pref))} ]" if pref else ""
    return (f'{_left_out(cfg, "#")}name: "{name}"\nmax_batch_size: {cfg.max_batch}\n'
            f"dynamic_batching {{{pref}\n"
            f"  max_queue_delay_microseconds: {delay_us(cfg)}{_why(cfg, '#')}\n"
            f"  default_queue_policy {{\n"
            f"    max_queue_size: {cfg.max_queue}\n"
            f"    timeout_action: REJECT\n"
            f"  }}\n}}\n")


def tf_serving(cfg: BatchConfig, preferred=(), threads: int = 1) -> str:
    """A TF Serving ``--batching_parameters_file`` (text protobuf)."""
    pref = check_preferred(cfg, preferred)
    batches = max(1, math.ceil(cfg.max_queue / cfg.max_batch))
    allowed = "".join(f"allowed_batch_sizes: {p}\n" for p in sorted(set(pref) |
                                                                     {cfg.max_batch})) \
        if pref else ""
    return (f"{_left_out(cfg, '#')}max_batch_size {{ value: {cfg.max_batch} }}\n"
            f"batch_timeout_micros {{ value: {delay_us(cfg)} }}{_why(cfg, '#')}\n"
            f"max_enqueued_batches {{ value: {batches} }}\n"
            f"num_batch_threads {{ value: {threads} }}\n{allowed}")


def ray_max_ongoing(max_batch: int) -> int:
    """Ray Serve's ``max_ongoing_requests`` for batches of ``max_batch``: two full batches
    (Ray's default of 5 would cap every batch at 5 requests)."""
    return max(2 * max_batch, 5)


def ray_serve(cfg: BatchConfig) -> str:
    """The Ray Serve deployment and ``@serve.batch`` lines."""
    ongoing = ray_max_ongoing(cfg.max_batch)
    return (f"{_left_out(cfg, '#')}@serve.deployment(max_ongoing_requests={ongoing})"
            f"  # Ray's default of 5 would cap every batch at 5 requests.\n"
            f"class Embedder:\n"
            f"    @serve.batch(max_batch_size={cfg.max_batch}, "
            f"batch_wait_timeout_s={delay_us(cfg) / 1e6:g}){_why(cfg, '#')}\n"
            f"    async def __call__(self, texts: list[str]) -> list[list[float]]: ...\n")


def export(cfg: BatchConfig, name: str = "minilm", preferred=()) -> dict[str, str]:
    """Every system's text for ``cfg``: ``{"triton": …, "tf_serving": …, "ray_serve": …}``."""
    return {"triton": triton(cfg, name, preferred), "tf_serving": tf_serving(cfg, preferred),
            "ray_serve": ray_serve(cfg)}


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


def config_from_service(url: str) -> BatchConfig:
    """The ``BatchConfig`` a running ``labsupport serve`` runs (loopback only)."""
    from ..net import get_config
    return BatchConfig(**get_config(url))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="labsupport export", description=__doc__.split("\n\n")[0])
    add_arguments(p)  # the knobs, the policy included: it says what max_delay_ms is
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
        cfg = config_from_service(args.from_url) if args.from_url else from_arguments(args)
        out = {s: v for s, v in export(cfg, args.name, args.preferred).items()
               if s in (args.system or SYSTEMS)}
    except ValueError as exc:
        print(f"labsupport export: {exc}", file=sys.stderr)
        return 2
    if args.out:
        folder = Path(args.out)
        folder.mkdir(parents=True, exist_ok=True)
        for s, text in out.items():
            (folder / FILENAMES[s]).write_text(text)
    if args.json:
        print(json.dumps({"config": cfg.to_dict(), "preferred": args.preferred,
                          "configs": out, "table": TABLE}, indent=1))
        return 0
    for s, text in out.items():
        print(f"# ---- {s} ({FILENAMES[s]}) ----\n{text}")
    print(table_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
