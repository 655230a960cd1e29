"""Where each peer of ``labsupport bench peers`` lives and how it starts: its server script
in ``peers/<venv>/`` at the top of the repository (beside its ``requirements.txt``), run by
the python of its own venv ``.peers/<venv>/`` (``make peers``) with ``PYTHONPATH`` at the
repository, through the lab's one child-process helper (``serving.ops.procs``): it writes
``--ready-file`` once it serves and stops when this process goes.
"""
from __future__ import annotations

import os
import subprocess
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ...paths import REPO
from ...serving.net import HOST, free_socket
from ...serving.ops import procs

SOURCES = REPO / "peers"  # each peer's folder: requirements.txt and its server script(s)
VENVS = {"ray_serve": "ray", "pytriton": "pytriton"}  # peer -> its folder and its venv
HINT = "not installed: run `make peers` (Ray Serve and PyTriton, each in its own venv under .peers/)"


def peers_dir() -> Path:
    """Where ``make peers`` puts the venvs (``$LAB_PEERS_DIR``, default ``.peers/``)."""
    return Path(os.environ.get("LAB_PEERS_DIR", REPO / ".peers"))


def peer_python(peer: str) -> Path | None:
    """The python of ``peer``'s venv (``.peers/<venv>/bin/python``) if installed, else None."""
    venv = peers_dir() / VENVS[peer]
    py = venv / "bin" / "python"
    return py if py.exists() and (venv / ".installed").exists() else None


def missing() -> dict[str, str]:
    """``{peer: why}`` for every peer that is not installed."""
    return {p: f"{p} {HINT}" for p in VENVS if peer_python(p) is None}


def free_port() -> int:
    with free_socket() as s:
        return s.getsockname()[1]


@dataclass
class Peer:
    """A running peer server; ``url`` is its 127.0.0.1 base URL, ``ready`` what it wrote
    to its ready file."""
    name: str
    proc: subprocess.Popen
    url: str
    log: Path
    ready: str = ""
    started_s: float = 0.0

    def stop(self, timeout_s: float = 30.0) -> None:
        """SIGTERM (the scripts shut Serve/Ray or Triton down), then kill what is left."""
        procs.stop(self.proc, timeout_s, tree=True)


def start_peer(peer: str, args: list[str], timeout_s: float = 120.0,
               script: str = "server.py") -> Peer:
    """Start ``peers/<venv>/<script>`` with ``peer``'s venv python on a free port; wait
    until it is ready."""
    py = peer_python(peer)
    if py is None:
        raise FileNotFoundError(f"{peer} {HINT}")
    port = free_port()
    env = {"PYTHONPATH": str(REPO), "RAY_USAGE_STATS_ENABLED": "0", "PYTHONUNBUFFERED": "1"}
    if peer == "pytriton":  # its Python backend stub needs libpython on the loader path
        lib = sysconfig.get_config_var("LIBDIR") or ""
        env["LD_LIBRARY_PATH"] = ":".join(x for x in (lib, os.environ.get("LD_LIBRARY_PATH")) if x)
    tmp = Path(tempfile.mkdtemp(prefix=f"labsupport-{peer}-"))
    t0 = time.monotonic()
    cmd = [str(py), str(SOURCES / VENVS[peer] / script), "--port", str(port), *args,
           "--ready-file", str(tmp / "ready")]
    proc, ready = procs.start(cmd, tmp / "ready", tmp / "peer.log", timeout_s, peer,
                              env=env, cwd=str(tmp))
    return Peer(peer, proc, f"http://{HOST}:{port}", tmp / "peer.log", ready,
                round(time.monotonic() - t0, 1))
