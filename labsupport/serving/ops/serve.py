"""``labsupport serve``: the embedding service on 127.0.0.1 (``serving/api``), one process,
or ``--replicas N`` processes behind the router (``replicas.py``).

``--model fake`` sleeps ``a + b·n`` ms per batch instead of running MiniLM, for tests and
demos without the model. ``--ready-file`` and ``--parent-pid`` are for background starts
(``launcher.start_service``): the URL is written there once the service answers, and the
service stops when that process is gone.
"""
from __future__ import annotations

import argparse
import sys

from ...batching.config import add_arguments, from_arguments
from ...costs import add_cost_arguments, cost_from_arguments
from ...validate import check_int
from ..api.app import make_app
from ..api.encoders import load_embedder, model_name
from ..api.service import EmbeddingService, RequestLimits
from ..net import HOST, free_socket
from .procs import serve_http
from .replicas import add_replica_args


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="labsupport serve", description=__doc__.split("\n\n")[0],
                                allow_abbrev=False)  # replicas.py strips options by full name
    p.add_argument("--port", type=int, default=8000, help="TCP port on 127.0.0.1 (0: any free)")
    p.add_argument("--model", default="minilm", choices=("minilm", "fake"))
    add_cost_arguments(p, prefix="fake-")  # --fake-fixed-ms …: the fake model's cost
    add_arguments(p)  # every BatchConfig knob: --max-batch … --slo-p99-ms, --edges, --policy
    p.add_argument("--max-items", type=int, default=RequestLimits.max_items,
                   help="texts per request")
    p.add_argument("--threads", type=int, default=1,
                   help="torch CPU threads for the model (1: leaves a core to the HTTP loop; "
                        "more threads spin and starve it on a small machine)")
    p.add_argument("--ready-file", help="write the URL here once serving")
    p.add_argument("--parent-pid", type=int, help="stop when this process exits")
    add_replica_args(p)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:  # the knobs are checked before any replica starts
        cfg = from_arguments(args)
        check_int("port", args.port, 0, 65535)
        limits = RequestLimits(max_items=check_int("max_items", args.max_items, 1, 4096))
        fake = cost_from_arguments(args, "fake-") if args.model == "fake" else None
    except ValueError as exc:
        print(f"labsupport serve: {exc}", file=sys.stderr)
        return 2
    if args.replicas != 1:  # N copies of this service behind the router
        from .replicas import serve_replicas
        return serve_replicas(args, list(sys.argv[1:] if argv is None else argv))
    try:
        if args.model != "fake":
            import torch
            torch.set_num_threads(check_int("threads", args.threads, 1, 256))
        model = load_embedder(args.model, fake)
    except ValueError as exc:
        print(f"labsupport serve: {exc}", file=sys.stderr)
        return 2
    svc = EmbeddingService(model, cfg, limits)
    sock = free_socket(args.port)
    url = f"http://{HOST}:{sock.getsockname()[1]}"
    print(f"labsupport serve: {model_name(model)}, {svc.config()} on {url}", flush=True)
    serve_http(make_app(svc), sock, url, args.ready_file, args.parent_pid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
