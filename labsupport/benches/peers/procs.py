"""Peer processes for ``labsupport bench peers``: where each peer's venv is, starting its
server script with that venv's python, and the CPU the box spends outside it.

A peer runs as a child process (``python <script> --port P …`` with ``PYTHONPATH`` at the
repository); it prints ``READY <port>`` once it serves. ``stop()`` sends SIGTERM (the
scripts shut Serve/Ray or Triton down), then kills the whole process tree if needed.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ...paths import REPO
from ...serving.net import free_socket

HERE = Path(__file__).resolve().parent
SCRIPTS = {"ray_serve": ("ray", "ray_server.py"), "pytriton": ("pytriton", "pytriton_server.py")}
HINT = "not installed: run `make peers` (Ray Serve and PyTriton, each in its own venv under .peers/)"


def peers_dir() -> Path:
    """Where ``make peers`` puts the venvs (``$LAB_PEERS_DIR``, default ``.peers/``)."""
    return Path(os.environ.get("LAB_PEERS_DIR", REPO / ".peers"))


def peer_python(peer: str) -> Path | None:
    """The python of ``peer``'s venv (``.peers/<venv>/bin/python``) if installed, else None."""
    venv = peers_dir() / SCRIPTS[peer][0]
    py = venv / "bin" / "python"
    return py if py.exists() and (venv / ".installed").exists() else None


def missing() -> dict[str, str]:
    """``{peer: why}`` for every peer that is not installed."""
    return {p: f"{p} {HINT}" for p in SCRIPTS if peer_python(p) is None}


def free_port() -> int:
    with free_socket() as s:
        return s.getsockname()[1]


@dataclass
class Peer:
    """A running peer server; ``url`` is its 127.0.0.1 base URL."""
    name: str
    proc: subprocess.Popen
    url: str
    log: Path
    started_s: float = 0.0

    def stop(self, timeout_s: float = 30.0) -> None:
        if self.proc.poll() is None:
            tree = _tree(self.proc.pid)
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                pass
            for p in [self.proc.pid, *tree]:  # whatever outlived the polite stop
                try:
                    os.kill(p, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            self.proc.wait(5)


def start_peer(peer: str, args: list[str], timeout_s: float = 120.0,
               module: str | None = None) -> Peer:
    """Start ``peer``'s server script (or ``python -m module``) with its venv's python;
    wait for ``READY``."""
    py = peer_python(peer)
    if py is None:
        raise FileNotFoundError(f"{peer} {HINT}")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAY_USAGE_STATS_ENABLED": "0",
           "PYTHONUNBUFFERED": "1"}
    if peer == "pytriton":  # its Python backend stub needs libpython on the loader path
        lib = sysconfig.get_config_var("LIBDIR") or ""
        env["LD_LIBRARY_PATH"] = ":".join(x for x in (lib, env.get("LD_LIBRARY_PATH")) if x)
    log = Path(tempfile.mkstemp(prefix=f"labsupport-{peer}-", suffix=".log")[1])
    t0 = time.monotonic()
    with open(log, "wb") as out:
        what = ["-m", module] if module else [str(HERE / SCRIPTS[peer][1])]
        proc = subprocess.Popen([str(py), *what, "--port", str(port), *args], stdout=out, stderr=subprocess.STDOUT, env=env,
                                stdin=subprocess.DEVNULL, cwd=tempfile.gettempdir())
    p = Peer(peer, proc, f"http://127.0.0.1:{port}", log)
    while b"READY" not in log.read_bytes():
        if proc.poll() is not None or time.monotonic() - t0 > timeout_s:
            p.stop()
            tail = log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"{peer} did not start (exit {proc.returncode}):\n{tail}")
        time.sleep(0.2)
    p.started_s = round(time.monotonic() - t0, 1)
    return p


def _tree(pid: int) -> list[int]:
    import psutil
    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


@dataclass
class CpuMeter:
    """CPU over one run, in cores (CPU-seconds per second of wall time): the whole box
    (``/proc/stat``), the peer's process tree, this process (the load generator), and
    everything else = box − peer − this process."""
    peer_pid: int | None = None   # None: the peer runs inside this process
    _t0: float = 0.0
    _box0: float = 0.0
    _own0: float = 0.0
    _peer0: dict = field(default_factory=dict)

    def __enter__(self) -> "CpuMeter":
        self._t0, self._box0 = time.monotonic(), _box_busy_s()
        self._own0, self._peer0 = _own_s(), self._peer_times()
        return self

    def __exit__(self, *exc) -> None:
        wall = time.monotonic() - self._t0
        box, own = _box_busy_s() - self._box0, _own_s() - self._own0
        now = self._peer_times()
        peer = sum(v - self._peer0.get(k, 0.0) for k, v in now.items())
        r = lambda x: round(max(0.0, x) / wall, 3)  # noqa: E731
        self.result = {"box_cores": r(box), "peer_cores": r(peer) if self.peer_pid else None,
                       "client_cores": r(own), "other_cores": r(box - peer - own),
                       "cpus": os.cpu_count()}

    def _peer_times(self) -> dict[int, float]:
        if not self.peer_pid:
            return {}
        import psutil
        out = {}
        try:
            root = psutil.Process(self.peer_pid)
            for p in [root, *root.children(recursive=True)]:
                try:
                    t = p.cpu_times()
                    out[p.pid] = t.user + t.system
                except psutil.NoSuchProcess:
                    pass
        except psutil.NoSuchProcess:
            pass
        return out


def _box_busy_s() -> float:
    """CPU-seconds the whole box has been busy (not idle / iowait) since boot."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def _own_s() -> float:
    t = os.times()
    return t.user + t.system


if sys.platform != "linux":  # /proc/stat: the bench reports CPU on Linux only
    def _box_busy_s() -> float:  # noqa: F811
        return 0.0
