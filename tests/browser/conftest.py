"""Real JupyterLab in Debian's Chromium, driven by Playwright (recipes.md §5).

Never ``playwright install``: the browser is ``shutil.which("chromium")``; without it every
browser test is skipped with the reason. JupyterLab runs on 127.0.0.1 from a temp copy of
``solutions/``, with its config, runtime, settings and workspaces in that temp dir."""
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

ROOT = Path(__file__).resolve().parents[2]
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
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1000}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory, browser_type_launch_args):
    """``(base_url, token, root)``: JupyterLab serving a temp copy of ``solutions/``."""
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
        lab_start_s = time.monotonic() - t0
        yield {"base": base, "token": token, "root": root, "start_s": lab_start_s}
    finally:
        proc.send_signal(signal.SIGTERM)  # a background server ignores SIGINT
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
