"""``make lab`` opens JupyterLab without the "Jupyter news?" toast: its settings dir holds
the notification settings and update checks are off (checked through Lab's settings API)."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def make(*args, **env) -> str:
    r = subprocess.run(["make", "-s", *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=60, env={**os.environ, **env})
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_make_lab_uses_its_settings_dir_and_never_checks_for_updates():
    recipe = make("-n", "lab")
    assert "JUPYTERLAB_SETTINGS_DIR=" in recipe and ".jupyter-lab-settings" in recipe
    assert "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate" in recipe
    assert "--LabApp.news_url=None" in recipe


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_lab_settings_turn_news_and_update_checks_off(tmp_path):
    settings = tmp_path / "settings"
    make("lab-settings", f"LAB_SETTINGS={settings}")
    f = settings / "@jupyterlab/apputils-extension/notification.jupyterlab-settings"
    assert json.loads(f.read_text()) == {"fetchNews": "false", "checkForUpdates": False}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(settings),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt")}
    cmd = [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", "--ip",
           "127.0.0.1", "--port", str(port), "--IdentityProvider.token=t",
           f"--ServerApp.root_dir={tmp_path}", "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--allow-root"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/api/status?token=t", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline and proc.poll() is None, "lab did not start"
            time.sleep(0.2)
        r = httpx.get(f"{base}/lab/api/settings/@jupyterlab/apputils-extension:notification"
                      "?token=t", timeout=10)
        assert r.status_code == 200, r.text
        composite = r.json()["settings"]
        assert composite["fetchNews"] == "false" and composite["checkForUpdates"] is False
        upd = httpx.get(f"{base}/lab/api/update?token=t", timeout=10)
        assert upd.status_code == 200 and upd.json().get("notification") is None, upd.text
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(15)
