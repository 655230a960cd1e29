"""Shared by the browser tests: Debian's Chromium (never ``playwright install``) at a
projector's 1280×800, JupyterLab on 127.0.0.1 serving a temp copy of ``solutions/``, a
guard that aborts (and records) every request leaving loopback. Page helpers:
``browser_pages.py``."""
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from browser_pages import ROOT, VIEWPORT

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium; "
                    "`make install-test` does it as root): browser tests skipped")
    return {**browser_type_launch_args, "executable_path": chromium, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": VIEWPORT}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def lab(tmp_path_factory, browser_type_launch_args):
    """``{base, token, root, start_s}``: JupyterLab serving a temp copy of ``solutions/``,
    started once for all browser tests (each stops its kernels: ``_kernels_stop``)."""
    tmp = tmp_path_factory.mktemp("lab")
    root = tmp / "notebooks"
    root.mkdir()
    for nb in ROOT.glob("solutions/*/*.ipynb"):
        shutil.copy(nb, root / nb.name)
    settings = tmp / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port, token = _free_port(), secrets.token_hex(16)
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ["PATH"],
           "JUPYTER_CONFIG_DIR": str(tmp / "config"), "JUPYTER_RUNTIME_DIR": str(tmp / "run"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "workspaces"),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TOKENIZERS_PARALLELISM": "false"}
    log = open(tmp / "lab.log", "wb")
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [os.path.join(bindir, "jupyter"), "lab", "--no-browser", "--allow-root",
         "--ip", "127.0.0.1", "--port", str(port), f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={root}", "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                if httpx.get(f"{base}/api/status?token={token}", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() - t0 > 60:
                raise RuntimeError("jupyter lab did not start:\n" +
                                   (tmp / "lab.log").read_text()[-3000:])
            time.sleep(0.2)
        yield {"base": base, "token": token, "root": root, "start_s": time.monotonic() - t0}
    finally:
        proc.send_signal(signal.SIGTERM)  # a background server ignores SIGINT
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(autouse=True)
def _kernels_stop(request):
    """After a test on the shared JupyterLab, its kernels stop (and with them what they
    started: notebook 07's service and load), so the next test has the cores to itself."""
    yield
    if "lab" not in request.fixturenames:
        return
    lab = request.getfixturevalue("lab")
    auth = {"token": lab["token"]}
    for kernel in httpx.get(f"{lab['base']}/api/kernels", params=auth, timeout=10).json():
        httpx.delete(f"{lab['base']}/api/kernels/{kernel['id']}", params=auth, timeout=30)
