"""A student's feedback page in Chromium at a projector's 1280×800: the long message of a
failed check (ex05_4's, from the real check on a real wrong answer) is wrapped, so its end
is on screen with no sideways scrolling, and the contents name every graded item."""
import functools
import http.server
import sys
import threading
from pathlib import Path

import pytest

from browser_pages import ARTIFACTS, VIEWPORT, guard_loopback

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import feedback_pages  # noqa: E402

END_OF = """([pre, tail]) => {
  // the on-screen box of the message's last characters
  const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  let text = "", nodes = [];
  while (walker.nextNode()) { nodes.push([walker.currentNode, text.length]); text += walker.currentNode.data; }
  const at = text.lastIndexOf(tail);
  if (at < 0) return null;
  const [node, start] = nodes.filter(([n, s]) => s <= at + tail.length - 1).pop();
  const range = document.createRange();
  const end = at + tail.length - start;
  range.setStart(node, Math.max(0, end - 1)); range.setEnd(node, end);
  const r = range.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,
          hit: !!hit && pre.contains(hit), width: innerWidth, height: innerHeight};
}"""
SIDEWAYS = """() => [document.documentElement, ...document.querySelectorAll(
  'pre, div.output_subarea, div.output_area, div.input_area, #notebook-container')]
  .filter(e => e.scrollWidth > e.clientWidth + 1)
  .map(e => `${e.tagName}.${e.className}: ${e.scrollWidth} > ${e.clientWidth}`)"""


@pytest.fixture()
def served(tmp_path):
    """The feedback page on a loopback HTTP server, as a trainer's share would serve it."""
    page_path, message = feedback_pages.render(tmp_path / "site" / "feedback.html")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler,
                                directory=str(page_path.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/feedback.html", message
    finally:
        server.shutdown()
        server.server_close()


def test_a_long_failed_message_is_on_screen_whole(page, served):
    url, message = served
    assert len(message) > 200  # long enough to be cut on one line at 1280 px
    guard_loopback(page)  # the template's MathJax link goes nowhere: aborted
    page.goto(url)
    assert page.viewport_size == VIEWPORT
    toc = page.locator("#toc li").all_inner_texts()
    assert any(t.startswith("ex05_4 — KV bytes per token and the KV budget") for t in toc), toc
    assert not [t for t in toc if t.startswith("Test cell")], toc
    pre = page.locator("div.output_error pre", has_text="ex05_4:").first
    pre.scroll_into_view_if_needed()
    tail = message[-30:]
    box = page.evaluate(END_OF, [pre.element_handle(), tail])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "feedback_ex05_4.png"))
    assert box is not None, "the message's end is not in the page"
    if box["bottom"] > box["height"]:  # a long message: bring its end into view
        page.evaluate("y => window.scrollBy(0, y)", box["bottom"] - box["height"] + 40)
        box = page.evaluate(END_OF, [pre.element_handle(), tail])
    assert 0 <= box["left"] and box["right"] <= box["width"], box
    assert 0 <= box["top"] and box["bottom"] <= box["height"], box
    assert box["hit"], "something covers the message's end"
    assert page.evaluate(SIDEWAYS) == []  # nothing scrolls sideways
