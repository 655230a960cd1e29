"""Helpers for the JupyterHub walk-through: what is missing, a hub process, commands as a user."""
from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
HUB_VENV = REPO / ".venv-hub"
HUB_BIN = HUB_VENV / "bin"
CHP = REPO / ".hub-node" / "node_modules" / ".bin" / "configurable-http-proxy"
CONFIG = REPO / "hub" / "jupyterhub_config.py"
COURSE_PY = REPO / "hub" / "course.py"


def missing() -> str | None:
    """Why the walk-through cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root: it creates Unix users and the hub's spawner switches to them"
    if not (HUB_BIN / "jupyterhub").exists():
        return "no JupyterHub venv: run `make hub-install` (.venv-hub, jupyterhub 6.1.1)"
    if not CHP.exists():
        return "no configurable-http-proxy: run `make hub-install` (npm, into .hub-node/)"
    for tool in ("useradd", "userdel", "runuser"):
        if not shutil.which(tool):
            return f"no `{tool}` on this system (needed for real local users)"
    return None


def protected_paths() -> list[Path]:
    """What ``hub/course.py setup --protect-repo`` makes 0700 (its own list)."""
    spec = importlib.util.spec_from_file_location("labhub_course", COURSE_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.protected_paths()


def free_port_block(n: int = 3) -> int:
    """A port p with p … p+n-1 all free on 127.0.0.1 (the hub uses three in a row)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + n >= 65535:
            continue
        try:
            socks = []
            for k in range(n):
                t = socket.socket()
                socks.append(t)
                t.bind(("127.0.0.1", base + k))
            return base
        except OSError:
            continue
        finally:
            for t in socks:
                t.close()
    raise RuntimeError("no block of free ports on 127.0.0.1")


def user_env(user: str) -> dict[str, str]:
    home = f"/home/{user}"
    return {"HOME": home, "USER": user, "LOGNAME": user, "LANG": "C.UTF-8",
            "PATH": f"{HUB_BIN}:/usr/local/bin:/usr/bin:/bin",
            "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TOKENIZERS_PARALLELISM": "false"}


def as_user(user: str, *cmd: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``cmd`` as the Unix user ``user`` (runuser, clean environment, cwd = home)."""
    env = [f"{k}={v}" for k, v in user_env(user).items()]
    return subprocess.run(["runuser", "-u", user, "--", "env", "-i", *env, *cmd],
                          cwd=f"/home/{user}", capture_output=True, text=True, timeout=timeout)


def nbgrader(user: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    out = as_user(user, str(HUB_BIN / "nbgrader"), *args, timeout=timeout)
    assert out.returncode == 0, f"nbgrader {' '.join(args)} as {user}: {out.stderr[-2000:]}"
    return out


class Hub:
    """A JupyterHub process on 127.0.0.1 run with ``hub/jupyterhub_config.py``."""

    def __init__(self, env: dict[str, str], token: str, log: Path):
        self.port = int(env["LABHUB_PORT"])
        self.url = f"http://127.0.0.1:{self.port}"
        self.token, self.log = token, log
        self._log = open(log, "w")
        self.proc = subprocess.Popen([str(HUB_BIN / "jupyterhub"), "-f", str(CONFIG)],
                                     cwd=env["LABHUB_ROOT"], env=env, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.http = httpx.Client(base_url=self.url, timeout=60,
                                 headers={"Authorization": f"token {token}"})

    def wait_ready(self, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            assert self.proc.poll() is None, f"hub exited: {self.log.read_text()[-3000:]}"
            try:
                if self.http.get("/hub/api/").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        raise TimeoutError(f"hub not ready in {timeout} s: {self.log.read_text()[-3000:]}")

    def start_servers(self, users: list[str], timeout: float = 180) -> None:
        """Ask the hub to spawn each user's server (all at once), wait until all are ready."""
        for user in users:
            r = self.http.post(f"/hub/api/users/{user}/server")
            assert r.status_code in (201, 202), r.text
        waiting, end = set(users), time.monotonic() + timeout
        while waiting and time.monotonic() < end:
            for user in sorted(waiting):
                info = self.http.get(f"/hub/api/users/{user}").json()
                if info.get("servers", {}).get("", {}).get("ready"):
                    waiting.discard(user)
            time.sleep(0.5)
        if waiting:
            raise TimeoutError(f"servers of {sorted(waiting)} not ready in {timeout} s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()  # the hub stops users' servers and its proxy (cleanup_servers)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.http.close()
        self._log.close()
