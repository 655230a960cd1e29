"""The challenge's leaderboard page (``labgrader leaderboard``) in Chromium at a projector's
1280×800, served from loopback as a trainer would share it: the inline SVG draws one bar
per student with numbers, longest for the best goodput, and a dashed line per baseline;
names are shown as text (never markup); a flagged submission is listed last, "under review",
with its reason, and not plotted; nothing is fetched from outside; nothing scrolls
sideways."""
import functools
import http.server
import threading

import pytest

from browser_pages import ARTIFACTS, VIEWPORT, guard_loopback
from labgrader import leaderboard

pytestmark = pytest.mark.slow

ROWS = [leaderboard.Standing("amy", 5, 5, 178.0, {"fifo": 4.5, "window": 3.3, "default": 3.3,
                                                  "bucketed": 63.3, "adaptive": 41.5},
                             ["fifo", "window", "default", "bucketed", "adaptive"]),
        leaderboard.Standing("<b>bob</b>", 3, 5, 50.2, {"fifo": 4.5, "window": 3.3,
                                                        "default": 3.3, "bucketed": 63.3,
                                                        "adaptive": 41.5},
                             ["fifo", "window", "default"]),
        leaderboard.Standing("cy", 0, 5, None, {}),
        leaderboard.Standing("dee", 5, 5, 990.0, {"fifo": 4.5}, ["fifo"], review=(
            "ex09_1: flagged for manual review: reuses the lab's reference implementation: "
            "labsupport.batching.bucketed.BucketedPolicy (a long reason wraps in its cell)"))]
BARS = """() => [...document.querySelectorAll('svg rect.student')].map(r => {
  const b = r.getBoundingClientRect();
  return {width: b.width, left: b.left, right: b.right, title: r.textContent};
})"""
LINES = "() => [...document.querySelectorAll('svg line.baseline')].map(l => l.getBoundingClientRect().height)"


@pytest.fixture()
def served(tmp_path):
    leaderboard.write_html(ROWS, tmp_path / "leaderboard.html")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/leaderboard.html"
    finally:
        server.shutdown()
        server.server_close()


def test_leaderboard_renders(page, served):
    left = guard_loopback(page)
    page.goto(served)
    assert page.viewport_size == VIEWPORT
    svg = page.locator("svg")
    assert svg.is_visible()
    bars = page.evaluate(BARS)
    assert len(bars) == 2 and bars[0]["width"] > 3 * bars[1]["width"] > 0, bars
    assert [b["title"] for b in bars] == ["178.0 req/s", "50.2 req/s"]
    assert all(b["right"] <= VIEWPORT["width"] for b in bars)
    assert len(page.evaluate(LINES)) == 5 and min(page.evaluate(LINES)) > 20
    assert page.locator("svg text", has_text="<b>bob</b>").count() == 1  # text, not markup
    assert page.locator("b").count() == 0
    rows = page.locator("tbody tr").all_inner_texts()
    assert len(rows) == 4 and rows[0].startswith("1\tamy") and "cy" in rows[2]
    assert rows[3].startswith("under review\tdee")  # flagged: unranked, last, not plotted
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "leaderboard.png"), full_page=True)
    assert left == []
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
