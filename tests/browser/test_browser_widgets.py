"""Notebooks 02, 06 and 07 in a real JupyterLab in Chromium: Run All, move two sliders
(``max_batch``/``max_delay_ms``; 06: ``max_seqs``/``kv_budget_tokens``), and see the plots
(``img`` src) and readouts change.
No request may leave 127.0.0.1; screenshots go to test-artifacts/browser/.

Never ``playwright install``: the browser is ``shutil.which("chromium")``; without it every
browser test is skipped with the reason. JupyterLab runs on 127.0.0.1 from a temp copy of
``solutions/``, with its config, runtime, settings and workspaces in that temp dir.
"""
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

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"


# ---- JupyterLab + Chromium (recipes.md §5) ----------------------------------------
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


pytestmark = [pytest.mark.slow, pytest.mark.timeout(420)]

NOTEBOOKS = {  # notebook → (text that shows Run All reached the end, readout, sliders)
    "02_micro_batcher": (None, ".lab-readout", ("max_batch", "max_delay_ms")),
    "06_continuous_decoder": (
        None, ".widget-output [data-mime-type='application/vnd.jupyter.stdout']",
        ("max_seqs", "kv_budget_tokens")),
    "07_live_demo": ("stop it now with svc.stop()", ".widget-html-content",
                     ("max_batch", "max_delay_ms")),
}


def _snapshot(page) -> dict:
    return page.evaluate("""() => ({
        imgs: [...document.querySelectorAll('.jp-OutputArea-output img')].map(e => e.src),
        texts: [...document.querySelectorAll('.widget-html-content, .lab-readout, ' +
                "[data-mime-type='application/vnd.jupyter.stdout']")].map(e => e.innerText)
    })""")


def _wait_run_all_done(page, marker, timeout_s: float) -> None:
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
                errs = page.locator(".jp-OutputArea-output[data-mime-type="
                                    "'application/vnd.jupyter.stderr']").all_inner_texts()
                page.screenshot(path=str(ARTIFACTS / "run_all_stalled.png"), full_page=True)
                pytest.fail(f"Run All stopped before the end: prompts {prompts}\n" +
                            "\n".join(errs)[-3000:])
        else:
            stalled_since = None
        assert time.monotonic() < deadline, f"Run All not finished after {timeout_s} s"
        page.wait_for_timeout(500)
    if marker:
        page.get_by_text(marker).first.wait_for(timeout=10_000)


def _slider(page, name: str):
    rows = page.locator(".widget-slider").filter(
        has=page.locator(".widget-label", has_text=re.compile(rf"^{name}$")))
    assert rows.count() >= 1, f"no slider described {name!r}"
    return rows.last


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_sliders_redraw_plots_and_readouts(page, lab, name):
    path = lab["root"] / f"{name}.ipynb"
    if not path.exists():
        pytest.skip(f"{name}.ipynb is not in solutions/ yet")
    marker, readout_sel, sliders = NOTEBOOKS[name]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    left: list[str] = []

    def guard(route):
        host = urlsplit(route.request.url).hostname
        if host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            left.append(route.request.url)
            route.abort()

    page.context.route("**/*", guard)
    t = {"lab_start_s": round(lab["start_s"], 2)}
    t0 = time.monotonic()
    page.goto(f"{lab['base']}/lab/tree/{name}.ipynb?token={lab['token']}&reset")
    page.locator("#jp-main-statusbar").get_by_text("Idle").first.wait_for(timeout=90_000)
    t["page_to_idle_s"] = round(time.monotonic() - t0, 2)

    t1 = time.monotonic()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_text("Run All Cells", exact=True).click()
    _wait_run_all_done(page, marker, timeout_s=300)
    t["run_all_s"] = round(time.monotonic() - t1, 2)
    _slider(page, sliders[0]).scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"{name}_0_run_all.png"))

    for k, knob in enumerate(sliders, start=1):
        row = _slider(page, knob)
        row.scroll_into_view_if_needed()
        handle = row.locator(".noUi-handle").first
        before_val = handle.get_attribute("aria-valuenow")
        before = _snapshot(page)
        before_readouts = page.eval_on_selector_all(readout_sel,
                                                    "els => els.map(e => e.innerText)")
        t2 = time.monotonic()
        handle.focus()
        # down (a smaller batch / shorter wait changes the result), or up from the minimum:
        # the live dashboard shows the service's own config, which a cell may have set to 1
        at_min = before_val == handle.get_attribute("aria-valuemin")
        for _ in range(8):
            handle.press("ArrowRight" if at_min else "ArrowLeft")
        page.wait_for_function(
            "([el, v]) => el.getAttribute('aria-valuenow') !== v",
            arg=[handle.element_handle(), before_val], timeout=10_000)
        after_val = handle.get_attribute("aria-valuenow")
        assert (float(after_val) > float(before_val)) if at_min else \
            (float(after_val) < float(before_val)), (knob, before_val, after_val)
        assert row.locator(".widget-readout").inner_text().strip() != "", knob
        page.wait_for_function(
            """([imgs, texts, sel]) => {
                const now = [...document.querySelectorAll('.jp-OutputArea-output img')]
                    .map(e => e.src);
                const rd = [...document.querySelectorAll(sel)].map(e => e.innerText);
                const plot = now.length !== imgs.length || now.some((s, i) => s !== imgs[i]);
                return plot && rd.length > 0 && rd.join('|') !== texts;
            }""", arg=[before["imgs"], "|".join(before_readouts), readout_sel],
            timeout=30_000)
        t[f"{knob}_redraw_s"] = round(time.monotonic() - t2, 2)
        page.locator("#jp-main-statusbar").get_by_text("Idle").first.wait_for(timeout=60_000)
        page.screenshot(path=str(ARTIFACTS / f"{name}_{k}_{knob}.png"))
        readouts = page.eval_on_selector_all(readout_sel, "els => els.map(e => e.innerText)")
        assert any(re.search(r"\d", r) for r in readouts), readouts
    t["total_s"] = round(time.monotonic() - t0, 2)
    (ARTIFACTS / f"{name}_timings.json").write_text(json.dumps(t, indent=1))
    print(name, json.dumps(t))
    assert left == [], f"requests left 127.0.0.1: {left[:5]}"
