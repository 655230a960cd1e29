"""Shared by the browser tests: Debian's Chromium (never ``playwright install``) at a
projector's 1280×800, JupyterLab on 127.0.0.1 serving a temp copy of ``solutions/``, a
guard that aborts (and records) every request leaving loopback, and page helpers."""
import base64
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from labsupport.projector import png_info

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
VIEWPORT = {"width": 1280, "height": 800}  # a projector's resolution
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


def guard_loopback(page) -> list[str]:
    """Abort every request that leaves 127.0.0.1; returns the list they are recorded in."""
    left: list[str] = []

    def guard(route):
        if urlsplit(route.request.url).hostname in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            left.append(route.request.url)
            route.abort()
    page.context.route("**/*", guard)
    return left


def open_notebook(page, lab, name: str) -> None:
    """Open ``name``.ipynb with a fresh workspace and wait for an idle kernel."""
    page.goto(f"{lab['base']}/lab/tree/{name}.ipynb?token={lab['token']}&reset")
    idle(page, 90)


def idle(page, timeout_s: float = 60) -> None:
    page.locator("#jp-main-statusbar").get_by_text("Idle").first.wait_for(
        timeout=timeout_s * 1000)


def run_all(page) -> None:
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_text("Run All Cells", exact=True).click()


def wait_run_all_done(page, marker, timeout_s: float) -> None:
    """Until every code cell has an execution number; fail fast if Run All stopped at an
    error (no cell running, some never run, for 5 s in a row)."""
    deadline, stalled_since = time.monotonic() + timeout_s, None
    while True:
        prompts = page.eval_on_selector_all(".jp-CodeCell .jp-InputArea-prompt",
                                            "els => els.map(e => e.textContent.trim())")
        if prompts and all(re.fullmatch(r"\[\d+\]:", p) for p in prompts):
            break
        if "[*]:" not in prompts:
            stalled_since = stalled_since or time.monotonic()
            if time.monotonic() - stalled_since > 5:
                errs = [t for t in page.locator(".jp-OutputArea-output").all_inner_texts()
                        if "Error" in t or "Traceback" in t]
                page.screenshot(path=str(ARTIFACTS / "run_all_stalled.png"), full_page=True)
                pytest.fail(f"Run All stopped before the end: prompts {prompts}\n" +
                            "\n".join(errs)[-3000:])
        else:
            stalled_since = None
        assert time.monotonic() < deadline, f"Run All not finished after {timeout_s} s"
        page.wait_for_timeout(500)
    if marker:
        page.get_by_text(marker).first.wait_for(timeout=10_000)


def slider(page, name: str):
    """The last ``.widget-slider`` row labelled ``name``."""
    rows = page.locator(".widget-slider").filter(
        has=page.locator(".widget-label", has_text=re.compile(rf"^{name}$")))
    assert rows.count() >= 1, f"no slider described {name!r}"
    return rows.last


def images(page, selector: str = ".jp-OutputArea-output img") -> list[dict]:
    """Every image under ``selector``: its bytes' ``png_info`` (``{}`` if none), natural
    and displayed widths (CSS px) and the width of the output area that holds it."""
    found = page.evaluate("""async (sel) => {
        const out = [];
        for (const img of document.querySelectorAll(sel)) {
            if (!img.complete || !img.naturalWidth) continue;
            const buf = await (await fetch(img.src)).arrayBuffer();
            let bin = ''; const b = new Uint8Array(buf);
            for (let i = 0; i < b.length; i++) bin += String.fromCharCode(b[i]);
            const area = img.closest('.jp-OutputArea-output');
            out.push({b64: btoa(bin), natural: img.naturalWidth, shown: img.clientWidth,
                      area: area ? area.clientWidth : null});
        }
        return out;
    }""", selector)
    for f in found:
        data = base64.b64decode(f.pop("b64"))
        f["info"] = png_info(data) if data[:4] == b"\x89PNG" else {}
    return found


def screen_px(img: dict) -> dict[str, float]:
    """On-screen CSS px of each kind of text in ``img`` (from ``images``)."""
    scale = img["shown"] / img["natural"]
    return {k: round(v * scale, 1) for k, v in img["info"].get("text_px", {}).items()}
