"""The live dashboard in a real JupyterLab in Chromium at 1280×800 (issue 23): its text is
≥ 12 pt on screen and its figure fills the output width; the readout never wraps; one
config everywhere (slider, readout, plot title, status line) after a change from code,
from another client and after ``stop()``; one drag of a slider, and a burst of key presses,
each send one config change; one drag of the load slider sets the demo load's rate once,
and every surface shows it. A small notebook written here runs the toy-model service."""
import json
import re
import time

import httpx
import nbformat
import pytest

from browser_pages import (ARTIFACTS, guard_loopback, idle, images, open_notebook, run_all,
                      screen_px, slider, wait_run_all_done)
from labsupport.projector import NORMAL, PRESENTER
from labsupport.serving.demo.dashboard_view import LOAD_LABEL, describe

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]
NAME = "dashboard_probe"
SETUP = """
from labsupport.serving.ops.launcher import start_service
from labsupport.serving.ops.steady import SteadyLoad
from labsupport.serving.demo.dashboard import Dashboard
from labsupport.costs import ServiceModel
svc = start_service("fake", max_batch=8, max_delay_ms=5.0, max_queue=64,
                    fake=ServiceModel(10.0, 1.0))
load = SteadyLoad(svc.url, rate=20)
dash = Dashboard(svc.url, interval_s=1.0, load=load)
print("SERVICE", svc.url)
dash.widget()
"""


@pytest.fixture(scope="module")
def probe(lab):
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell(SETUP.strip())]
    nbformat.write(nb, lab["root"] / f"{NAME}.ipynb")
    return lab


def _run_cell(page, code: str) -> None:
    """Type one line of ``code`` into a new cell at the end, run it, wait for its end."""
    token = f"ran-{time.monotonic_ns()}"
    last = page.locator(".jp-Notebook .jp-Cell").last
    last.scroll_into_view_if_needed()
    last.locator(".jp-InputPrompt").first.click()  # select the last cell
    page.keyboard.press("Escape")
    page.keyboard.press("b")  # a new cell below it, in command mode
    page.keyboard.press("Enter")
    page.keyboard.type(f"{code}; print({token!r})")
    page.keyboard.press("Shift+Enter")
    page.locator(".jp-OutputArea-output").get_by_text(token).first.wait_for(timeout=60_000)


def _shown(page) -> dict:
    """What the page shows: slider values, readout tiles, status line, plot title."""
    tiles = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '.lab-readout .lab-tile-label')].map(e => [e.innerText, e.nextElementSibling.innerText]))""")
    plot = [i for i in images(page, ".widget-image") if i["info"]]
    value = lambda name: float(slider(page, name).locator(".noUi-handle").first  # noqa: E731
                               .get_attribute("aria-valuenow"))
    return {"max_batch": round(value("max_batch")), "max_delay_ms": value("max_delay_ms"),
            "tiles": tiles, "status": page.locator(".lab-status").inner_text(),
            "title": plot[-1]["info"]["title"] if plot else None}


def _agrees(page, url: str, within_s: float = 8.0) -> dict:
    """Wait until every surface shows the service's config; return what was shown."""
    deadline = time.monotonic() + within_s
    while True:
        cfg = httpx.get(url + "/config", timeout=5).json()
        s = _shown(page)
        ok = (s["max_batch"] == cfg["max_batch"] and s["max_delay_ms"] == cfg["max_delay_ms"]
              and s["tiles"].get("max_batch") == str(cfg["max_batch"])
              and s["tiles"].get("policy") == cfg["policy"]
              and describe(cfg) in s["status"]
              and s["title"] == f"{describe(cfg)} · load {s['tiles'].get(LOAD_LABEL)} req/s")
        if ok:
            return s
        assert time.monotonic() < deadline, f"the page disagrees with {cfg}: {s}"
        page.wait_for_timeout(200)


def _changes(url: str) -> float:
    text = httpx.get(url + "/metrics", timeout=5).text
    return float(re.search(r"^lab_config_changes_total (\S+)$", text, re.M).group(1))


def _settle(url: str, quiet_s: float = 2.0, within_s: float = 15.0) -> float:
    """The config-change count once it has not moved for ``quiet_s``."""
    deadline, last, since = time.monotonic() + within_s, _changes(url), time.monotonic()
    while time.monotonic() - since < quiet_s:
        assert time.monotonic() < deadline
        time.sleep(0.2)
        now = _changes(url)
        if now != last:
            last, since = now, time.monotonic()
    return last


def _drag(page, name: str, px: int):
    """Drag slider ``name``'s handle by ``px`` (CSS px, negative: left) in ten small moves,
    as a hand does; returns the handle."""
    handle = slider(page, name).locator(".noUi-handle").first
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for k in range(1, 11):
        page.mouse.move(x + k * px / 10, y)
        page.wait_for_timeout(40)
    page.mouse.up()
    return handle


def test_dashboard_reads_from_the_back_and_keeps_one_state(page, probe):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    left = guard_loopback(page)
    open_notebook(page, probe, NAME)
    run_all(page)
    wait_run_all_done(page, None, timeout_s=120)
    url = re.search(r"SERVICE (\S+)", page.locator(".jp-OutputArea-output").first
                    .inner_text()).group(1)
    page.locator(".widget-image").first.scroll_into_view_if_needed()
    page.wait_for_timeout(2500)  # a few polls: the plot has lines
    page.screenshot(path=str(ARTIFACTS / "dashboard_0_start.png"))

    # projector-sized: the plot fills the output width, its text >= 12 pt on screen
    plot = [i for i in images(page, ".widget-image") if i["info"]][-1]
    assert plot["shown"] >= 0.95 * plot["area"], plot
    px = screen_px(plot)
    assert min(px.values()) >= NORMAL.text_px - 0.1, px
    assert px["axis_label"] >= 16 and px["tick_label"] >= 16, px
    # the readout never wraps nor clips at 1280 px, and its numbers are big
    rd = page.evaluate("""() => [...document.querySelectorAll('.lab-readout .lab-tile-value')]
        .map(e => ({h: e.getBoundingClientRect().height, fs: parseFloat(getComputedStyle(e).fontSize),
                    clip: e.scrollWidth > e.clientWidth + 1}))""")
    assert len(rd) == 11 and all(r["h"] < 1.6 * r["fs"] and not r["clip"] for r in rd), rd
    assert min(r["fs"] for r in rd) >= 16

    # one state: from code, from another client, after stop()
    _run_cell(page, "dash.configure(max_batch=3)")
    _agrees(page, url)
    httpx.post(url + "/config", json={"max_batch": 6, "max_delay_ms": 7.5}, timeout=5)
    s = _agrees(page, url, within_s=4.0)  # within a poll (1 s) and its redraw
    assert "another client" in s["status"]
    page.screenshot(path=str(ARTIFACTS / "dashboard_1_other_client.png"))

    # one drag of the max_batch slider: one config change
    base = _settle(url)
    handle = _drag(page, "max_batch", 60)
    assert _settle(url) == base + 1
    _agrees(page, url)
    # a burst of key presses: one config change
    base = _settle(url)
    handle.focus()
    for _ in range(5):
        handle.press("ArrowLeft")
    assert _settle(url) == base + 1
    s = _agrees(page, url)
    # one drag of the load slider: one new rate, shown everywhere, no config change
    base = _settle(url)
    _drag(page, r"load \(req/s\)", -60)
    page.wait_for_function("() => document.querySelector('.lab-status').innerText"
                           ".includes('set load')", timeout=10_000)
    _run_cell(page, "print('RATE', load.rate, load.rate_changes)")
    rate, n = re.search(r"RATE (\S+) (\d+)", page.locator(".jp-OutputArea-output").last
                        .inner_text()).groups()
    assert float(rate) < 20 and n == "1"
    s = _agrees(page, url)
    assert float(s["tiles"][LOAD_LABEL]) == float(rate) and _changes(url) == base
    assert f"load {float(rate):g} req/s" in s["status"]
    page.screenshot(path=str(ARTIFACTS / "dashboard_2_after_drag.png"))

    # presenter: bigger still, at the next draw
    page.get_by_role("button", name="presenter").click()
    page.wait_for_function("() => [...document.querySelectorAll('.lab-readout .lab-tile-value')]"
                           ".every(e => parseFloat(getComputedStyle(e).fontSize) >= 24)",
                           timeout=10_000)
    page.wait_for_timeout(2500)
    big = screen_px([i for i in images(page, ".widget-image") if i["info"]][-1])
    assert min(big.values()) >= PRESENTER.text_px - 0.1, big
    page.locator(".widget-image").first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "dashboard_3_presenter.png"))
    page.get_by_role("button", name="presenter").click()

    # stop(): a last change from another client, then the poller stops at once
    _run_cell(page, "svc.configure(max_batch=2, max_delay_ms=4.0); dash.stop()")
    s = _agrees(page, url, within_s=4.0)
    assert "poller stopped" in s["status"]
    page.locator(".widget-image").first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "dashboard_4_stopped.png"))
    _run_cell(page, "load.stop(); svc.stop()")
    (ARTIFACTS / "dashboard_text_px.json").write_text(json.dumps(px, indent=1))
    assert left == [], f"requests left 127.0.0.1: {left[:5]}"
