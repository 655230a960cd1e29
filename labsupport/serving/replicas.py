"""``labsupport serve --replicas N``: N service processes on free ports behind one router.

Each replica is a plain ``labsupport serve`` (same model and knobs) in its own process,
told to exit when this one does (``--parent-pid``). The router (``router.py``) listens on
the requested port and picks a replica per request (``--routing``). Stopping the router
(Ctrl-C, SIGTERM) stops the replicas; a replica that dies is routed around.
"""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from labsupport.serving.launcher import _stop_process
from labsupport.serving.net import pid_alive
from labsupport.serving.router import ROUTINGS, Router, make_router_app
from labsupport.validate import check_int

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
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TOKENIZERS_PARALLELISM": "false"}
    procs = []
    for k in range(n):
        cmd = [sys.executable, "-m", "labsupport.cli", "serve", *replica_argv(argv),
               "--port", "0", "--ready-file", str(workdir / f"replica{k}.url"),
               "--parent-pid", str(os.getpid())]
        with open(workdir / f"replica{k}.log", "wb") as log:
            procs.append(subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                          stdin=subprocess.DEVNULL))
    deadline = time.monotonic() + timeout_s
    for k, proc in enumerate(procs):
        ready = workdir / f"replica{k}.url"
        while not ready.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                stop_replicas(procs)
                tail = (workdir / f"replica{k}.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"replica {k} did not start (exit {proc.returncode}):\n{tail}")
            time.sleep(0.05)
    return [(p, (workdir / f"replica{k}.url").read_text().strip()) for k, p in enumerate(procs)]


def stop_replicas(procs) -> None:
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        _stop_process(p)


async def _run(server, sock, ready_file: str | None, url: str, parent_pid: int | None) -> None:
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    if ready_file and server.started:
        tmp = Path(f"{ready_file}.tmp")
        tmp.write_text(url)
        tmp.replace(ready_file)
    while not task.done():
        if parent_pid and not pid_alive(parent_pid):
            server.should_exit = True
        await asyncio.sleep(0.3)
    await task


def serve_replicas(args, argv: list[str]) -> int:
    """Run the router on ``args.port`` in front of ``args.replicas`` replicas (1..64)."""
    import uvicorn
    try:
        check_int("replicas", args.replicas, 1, 64)
    except ValueError as exc:
        print(f"labsupport serve: {exc}", file=sys.stderr)
        return 2

    from labsupport.serving.net import HOST, free_socket
    workdir = Path(tempfile.mkdtemp(prefix="labsupport-replicas-"))
    started = start_replicas(args.replicas, argv, workdir)
    procs = [p for p, _ in started]
    try:
        router = Router([u for _, u in started], args.routing)
        sock = free_socket(args.port)
        url = f"http://{HOST}:{sock.getsockname()[1]}"
        config = uvicorn.Config(make_router_app(router), log_level="warning", access_log=False,
                                timeout_graceful_shutdown=5, backlog=4096)
        server = uvicorn.Server(config)
        print(f"labsupport serve: router ({args.routing}) on {url} -> "
              f"{', '.join(u for _, u in started)}", flush=True)
        asyncio.run(_run(server, sock, args.ready_file, url, args.parent_pid))
    finally:
        stop_replicas(procs)
    return 0
