"""``labsupport serve --replicas N``: N service processes on free ports behind one router.

Each replica is a plain ``labsupport serve`` (same model and knobs) in its own process,
told to exit when this one does (``--parent-pid``). The router (``router.py``) listens on
the requested port and picks a replica per request (``--routing``). Stopping the router
(Ctrl-C, SIGTERM) stops the replicas; a replica that dies is routed around.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from ...batching.routing import ROUTINGS
from ...validate import check_int
from . import procs
from .router import Router, make_router_app

# options that belong to the router, not to each replica (each value follows its flag)
ROUTER_ONLY = ("--replicas", "--routing", "--port", "--ready-file", "--parent-pid")


def add_replica_args(p) -> None:
    """``--replicas`` and ``--routing`` on ``labsupport serve``'s parser."""
    p.add_argument("--replicas", type=int, default=1,
                   help="N > 1: N service processes behind a router on --port (1..64)")
    p.add_argument("--routing", default="least_outstanding", choices=ROUTINGS,
                   help="how the router picks a replica (with --replicas > 1)")


def replica_argv(argv: list[str]) -> list[str]:
    """``argv`` of ``labsupport serve`` without the router's own options."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a.split("=", 1)[0] in ROUTER_ONLY:
            skip = "=" not in a
            continue
        out.append(a)
    return out


def start_replicas(n: int, argv: list[str], workdir: Path,
                   timeout_s: float = 120.0) -> list[tuple[subprocess.Popen, str]]:
    """Start ``n`` replicas at once; wait until each has written its URL. Any failure
    stops them all and raises with that replica's log."""
    check_int("replicas", n, 1, 64)
    ready = [workdir / f"replica{k}.url" for k in range(n)]
    logs = [workdir / f"replica{k}.log" for k in range(n)]
    started = [procs.spawn(procs.lab_command("serve", *replica_argv(argv), "--port", "0",
                                             "--ready-file", str(ready[k])), logs[k])
               for k in range(n)]
    try:
        urls = [procs.wait_ready(p, ready[k], logs[k], timeout_s, f"replica {k}")
                for k, p in enumerate(started)]
    except RuntimeError:
        stop_replicas(started)
        raise
    return list(zip(started, urls))


def stop_replicas(started) -> None:
    for p in started:
        if p.poll() is None:
            p.terminate()  # all at once, then wait for each
    for p in started:
        procs.stop(p)


def serve_replicas(args, argv: list[str]) -> int:
    """Run the router on ``args.port`` in front of ``args.replicas`` replicas (1..64)."""
    try:
        check_int("replicas", args.replicas, 1, 64)
    except ValueError as exc:
        print(f"labsupport serve: {exc}", file=sys.stderr)
        return 2

    from ..net import HOST, free_socket
    workdir = Path(tempfile.mkdtemp(prefix="labsupport-replicas-"))
    started = start_replicas(args.replicas, argv, workdir)
    children = [p for p, _ in started]
    try:
        router = Router([u for _, u in started], args.routing)
        sock = free_socket(args.port)
        url = f"http://{HOST}:{sock.getsockname()[1]}"
        print(f"labsupport serve: router ({args.routing}) on {url} -> "
              f"{', '.join(u for _, u in started)}", flush=True)
        procs.serve_http(make_router_app(router), sock, url, args.ready_file, args.parent_pid)
    finally:
        stop_replicas(children)
    return 0
