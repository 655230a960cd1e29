"""The feedback page's contents name every graded item by its exercise id and heading, a
failed check's whole message is in the page (the browser test shows it is on screen), and
no cell shows what the grading kernel printed."""
import html
import re
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import feedback_pages  # noqa: E402

from labgrader.feedback_view import item_name  # noqa: E402


def test_contents_name_each_item_by_id_and_heading(tmp_path):
    page, message = feedback_pages.render(tmp_path / "feedback.html")
    text = page.read_text()
    toc = re.search(r'<div id="toc">(.*?)</div>', text, re.S).group(1)
    entries = [html.unescape(re.sub(r"<[^>]+>", "", li)).split("(")[0].strip()
               for li in re.findall(r"<li>(.*?)</li>", toc, re.S)]
    nb = nbformat.read(feedback_pages.RELEASE, as_version=4)
    graded = [c.metadata["nbgrader"]["grade_id"].removesuffix("_test") for c in nb.cells
              if c.metadata.get("nbgrader", {}).get("grade")]
    assert [e.split(" — ")[0] for e in entries] == graded
    assert "ex05_4 — KV bytes per token and the KV budget" in entries
    assert not any(e.startswith("Test cell") for e in entries)
    assert "(test, score 0.0 / " in toc
    assert html.escape(message, quote=False) in text  # the whole message, once wrapped
    assert html.escape(feedback_pages.KERNEL_SAID, quote=False) not in text  # VerdictsOnly
    assert str(feedback_pages.KERNEL_COUNT) not in text


def test_item_names_drop_a_repeated_id():
    assert item_name("ex05_4", "Exercise ex05_4 — KV bytes per token") == \
        "ex05_4 — KV bytes per token"
    assert item_name("kc08_01", "kc08_01 · objective 1 · short answer") == \
        "kc08_01 — objective 1 · short answer"
    assert item_name("ex02_1", "The lesson's design") == "ex02_1 — The lesson's design"
