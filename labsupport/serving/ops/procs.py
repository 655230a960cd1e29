"""The lab's child processes, started and stopped one way: the service and its replicas,
the load generator, the peers' servers in their own venvs.

Parent side: ``spawn(cmd, log)`` starts ``cmd`` with the lab's environment (offline
models, no progress bars) and ``--parent-pid`` set to this process; ``wait_ready`` waits
until the child has written its ready file (else it stops the child and raises with the
tail of its log); ``start`` is both; ``stop`` ends a child (SIGTERM, then SIGKILL for it
and, with ``tree``, for everything it started).

Child side: ``write_ready`` (atomic, so the parent never reads half a line),
``parent_gone``, ``serve_http`` (a uvicorn server until it is stopped or its parent is
gone; it imports uvicorn and uvloop, the lab's venv only), ``until_parent_gone`` (cancel a coroutine when the parent goes) and
``stop_event`` (for a script that blocks: set on SIGTERM / SIGINT or when the parent goes).
Standard library only (psutil for ``stop(tree=True)``): the peers' venvs import it too.
"""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Awaitable

ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",  # models come from disk only
       "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TOKENIZERS_PARALLELISM": "false"}
POLL_S = 0.5  # how often a child looks for its parent


def lab_command(*argv: str) -> list[str]:
    """``python -m labsupport.cli ARGV`` with this interpreter."""
    return [sys.executable, "-m", "labsupport.cli", *argv]


def spawn(cmd: list[str], log: Path, *, env: dict[str, str] | None = None,
          cwd: str | None = None) -> subprocess.Popen:
    """Start ``cmd --parent-pid <this pid>``, its output into ``log``; returns at once."""
    with open(log, "wb") as out:
        return subprocess.Popen([*cmd, "--parent-pid", str(os.getpid())], stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env={**os.environ, **ENV, **(env or {})}, cwd=cwd)


def wait_ready(proc: subprocess.Popen, ready: Path, log: Path, timeout_s: float,
               what: str = "child") -> str:
    """The text of ``ready`` once ``proc`` wrote it; ``RuntimeError`` with the end of its
    log (after stopping it) when it exits first or ``timeout_s`` passes."""
    deadline = time.monotonic() + timeout_s
    while not ready.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(proc, tree=True)
            tail = Path(log).read_text(errors="replace")[-2000:]
            raise RuntimeError(f"{what} did not start (exit {proc.returncode}); log:\n{tail}")
        time.sleep(0.05)
    return ready.read_text().strip()


def start(cmd: list[str], ready: Path, log: Path, timeout_s: float, what: str = "child",
          **spawn_kw) -> tuple[subprocess.Popen, str]:
    """``spawn`` then ``wait_ready``: the running child and its ready text."""
    proc = spawn(cmd, log, **spawn_kw)
    return proc, wait_ready(proc, ready, log, timeout_s, what)


def stop(proc: subprocess.Popen, timeout_s: float = 8.0, tree: bool = False) -> None:
    """SIGTERM, up to ``timeout_s`` to exit, then SIGKILL; with ``tree`` also SIGKILL every
    process it started that outlived it (Ray, Triton)."""
    if proc.poll() is not None:
        return
    kids = _descendants(proc.pid) if tree else []
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
    for pid in kids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    proc.wait()


def _descendants(pid: int) -> list[int]:
    import psutil
    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


# ---- the child's side -------------------------------------------------------------------
def pid_alive(pid: int) -> bool:
    """True while process ``pid`` exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def parent_gone(parent_pid: int | None) -> bool:
    """True once ``parent_pid`` (None: no parent to follow) has exited."""
    return bool(parent_pid) and (not pid_alive(parent_pid) or os.getppid() != parent_pid)


def write_ready(path: str | Path | None, text: str) -> None:
    """Write ``text`` to ``path`` atomically (nothing when ``path`` is None)."""
    if path:
        tmp = Path(f"{path}.tmp")
        tmp.write_text(text)
        tmp.replace(path)


async def until_parent_gone(coro: Awaitable, parent_pid: int | None):
    """Await ``coro``; cancel it and exit the process if ``parent_pid`` goes first (a
    notebook kernel that was stopped)."""
    task = asyncio.ensure_future(coro)
    while not task.done():
        await asyncio.wait([task], timeout=POLL_S)
        if parent_gone(parent_pid):
            task.cancel()
            sys.exit(0)
    return task.result()


def serve_http(app, sock, url: str, ready_file: str | None, parent_pid: int | None) -> None:
    """Serve the ASGI ``app`` with uvicorn on ``sock`` until stopped; write ``url`` to
    ``ready_file`` once it listens (after the app's startup); stop when ``parent_pid`` is
    gone. The lean stack: httptools parses HTTP and uvloop runs the loop (a third of the
    CPU per request of h11 on asyncio's own loop, measured in ``docs/architecture.md``)."""
    import uvicorn
    import uvloop
    server = uvicorn.Server(uvicorn.Config(app, http="httptools", loop="none",
                                           proxy_headers=False,  # loopback: no proxy
                                           log_level="warning", access_log=False,
                                           timeout_graceful_shutdown=5, backlog=4096))
    uvloop.run(_serve(server, sock, url, ready_file, parent_pid))


async def _serve(server, sock, url: str, ready_file: str | None,
                 parent_pid: int | None) -> None:
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    if server.started:
        write_ready(ready_file, url)
    while not task.done():
        if parent_gone(parent_pid):
            server.should_exit = True
        await asyncio.wait([task], timeout=POLL_S)
    await task


def stop_event(parent_pid: int | None) -> threading.Event:
    """An event set on SIGTERM or SIGINT, or when ``parent_pid`` is gone: a blocking
    script waits on it, then shuts down. Call from the main thread."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())

    def watch() -> None:
        while not stop.wait(POLL_S):
            if parent_gone(parent_pid):
                stop.set()
    if parent_pid:
        threading.Thread(target=watch, name="parent-watch", daemon=True).start()
    return stop
