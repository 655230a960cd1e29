"""JupyterLab opened at the repo root shows the course in nbgrader's formgrader."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from labgrader import Course, course_config

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.read()


def test_formgrader_lists_the_course(tmp_path):
    course = tmp_path / "lab"  # a copy of the repo's course files, opened like `make lab`
    (course / "autograde").mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copy(ROOT / "autograde" / "nbgrader_config.py", course / "autograde")
    first = sorted(p for p in (ROOT / "solutions").iterdir() if any(p.glob("*.ipynb")))[-1]
    shutil.copytree(first, course / "solutions" / first.name)
    assert Course(course_config(course)).release([first.name])

    port, token, home = _free_port(), "t0ken", tmp_path / "home"
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"))
    cmd = [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser",
           "--ip", "127.0.0.1", "--port", str(port), f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={course}", "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    cmd += ["--allow-root"] if os.geteuid() == 0 else []
    proc = subprocess.Popen(cmd, cwd=course, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        ready = False
        for _ in range(240):
            if proc.poll() is not None:
                break
            try:
                ready = _get(f"{base}/api/status?token={token}")[0] == 200
            except OSError:
                ready = False
            if ready:
                break
            time.sleep(0.25)
        if not ready:
            proc.kill()
            pytest.fail(f"JupyterLab did not start: {proc.communicate()[1][-2000:]}")
        status, body = _get(f"{base}/formgrader/api/assignments?token={token}")
        assert status == 200
        names = {a["name"] for a in json.loads(body)}
        assert first.name in names, f"formgrader lists {names}"
        status, page = _get(f"{base}/formgrader?token={token}")
        assert status == 200 and b"misconfiguration" not in page.lower()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
