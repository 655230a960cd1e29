"""Page helpers of the browser tests (the fixtures are in this folder's conftest.py):
a loopback guard, opening and running a notebook in JupyterLab, sliders, the images
shown and their on-screen size. A module of its own, imported by its name (never as
``conftest``, which is whichever conftest.py pytest imported last)."""
import base64
import re
import time
from pathlib import Path
from urllib.parse import urlsplit

from labsupport.projector import png_info

ROOT = Path(__file__).resolve().parents[2]
VIEWPORT = {"width": 1280, "height": 800}  # a projector's resolution
ARTIFACTS = ROOT / "test-artifacts" / "browser"


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
