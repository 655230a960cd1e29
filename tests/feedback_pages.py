"""A student's feedback page for ex05_4 (notebook 05), rendered the way ``labsupport grade
feedback`` renders it — the course's config, nbgrader's HTML exporter with the lab's
template and feedback preprocessors — from the release notebook with a real wrong answer
graded by the real check, so that no gradebook or sandbox run is needed. Shared by
tests/grading/test_feedback_view.py and the browser test."""
from __future__ import annotations

import os
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT / "notebooks" / "05_decode_basics" / "05_decode_basics.ipynb"
VARIANT = ROOT / "tests" / "variants" / "ex05_4__util_after_weights.py"
KERNEL_SAID = "[printed by the grading kernel]"  # every code cell's output before the steps
KERNEL_COUNT = 4242424242  # and its execution count (a kernel can set its own: redteam13)


def failed_message() -> str:
    """The check's own message for a known wrong kv_budget (a long one)."""
    from labsupport.exercises import ex05
    ns: dict = {}
    exec(VARIANT.read_text(), ns)
    try:
        ex05.check_ex05_4(ns["kv_budget"])
    except AssertionError as err:
        return str(err)
    raise AssertionError("the wrong variant passed ex05_4's check")


def render(dest: Path) -> tuple[Path, str]:
    """Write the feedback page to ``dest``; returns its path and the failed message."""
    import nbgrader
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from labgrader import course_config
    from labgrader.feedback_view import GradesForStudents

    message = failed_message()
    nb = nbformat.read(RELEASE, as_version=4)
    score = max_score = 0.0
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code":  # what the grading kernel printed: never on the page
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=KERNEL_SAID)]
            cell.execution_count = KERNEL_COUNT
        if not meta.get("grade"):
            continue
        failed = meta["grade_id"] == "ex05_4_test"
        meta["score"] = 0.0 if failed else float(meta["points"])  # what GetGrades sets
        score, max_score = score + meta["score"], max_score + float(meta["points"])
        if failed:
            cell.outputs = [nbformat.v4.new_output(
                "error", ename="AssertionError", evalue=message,
                traceback=["Traceback (most recent call last)", f"AssertionError: {message}"])]
    cfg = course_config()
    resources = {"nbgrader": {"notebook": RELEASE.stem, "score": score, "max_score": max_score,
                              "late_penalty": 0}}
    for step in cfg.GenerateFeedback.preprocessors:  # the course's, but the gradebook's and
        if step not in (GradesForStudents, CSSHTMLHeaderPreprocessor):  # the converter's own page style
            nb, resources = step(config=cfg).preprocess(nb, resources)
    css = os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader",
                       "static", "node_modules", "bootstrap", "dist", "css")
    from traitlets.config import Config
    scoped = Config(cfg)  # the course scopes the template to the feedback converter's exporter
    scoped.HTMLExporter.merge(cfg.GenerateFeedback.HTMLExporter)
    exporter = HTMLExporter(config=scoped, extra_template_paths=[css])
    html, _ = exporter.from_notebook_node(nb, resources=resources)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(html)
    return dest, message
