"""Feedback a student can read (``labsupport grade feedback``, nbgrader's GenerateFeedback):
each graded item is named by its exercise id and heading in the page's contents, and every
failed check's message is shown whole, wrapped to the page (the course's template
``autograde/templates/lab_feedback``, wired in ``autograde/nbgrader_config.py``).
"""
from __future__ import annotations

import os
import re

from nbgrader.preprocessors import NbGraderPreprocessor

TEMPLATE = "lab_feedback"  # autograde/templates/lab_feedback/: conf.json, the page's file
PAGE = "lab_feedback.html.j2"  # extends nbgrader's feedback template (its index.html.j2)
ITEM = "lab_item"          # a graded cell's metadata key: its name in the contents


def nbgrader_templates() -> str:
    """nbgrader's own template folder (its ``feedback`` template, which ours extends)."""
    import nbgrader
    return os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions",
                        "formgrader", "templates")


def _heading(source: str) -> str:
    """A markdown cell's first heading line, without its ``#`` marks (else its first line)."""
    lines = [l.strip() for l in source.strip().splitlines() if l.strip()]
    head = next((l for l in lines if l.startswith("#")), lines[0] if lines else "")
    return head.lstrip("#").strip()


def item_name(exercise: str, heading: str) -> str:
    """``ex05_4 — KV bytes per token …``: the id, then the heading without a repeated id."""
    rest = re.sub(rf"^(?:Exercise\s+)?{re.escape(exercise)}\b\s*[—–:·-]*\s*", "", heading).strip()
    return f"{exercise} — {rest}" if rest else exercise


class NameGradedItems(NbGraderPreprocessor):
    """Feedback: give every graded cell the name the contents list (``ITEM``): its exercise
    id and its heading — a markdown heading line that names the id, else the nearest
    heading above the cell."""

    def preprocess(self, nb, resources):
        headings = [line.lstrip("#").strip() for c in nb.cells if c.cell_type == "markdown"
                    for line in c.source.splitlines() if line.startswith("#")]
        above = ""
        for cell in nb.cells:
            if cell.cell_type == "markdown" and cell.source.lstrip().startswith("#"):
                above = _heading(cell.source)
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade"):
                exercise = meta.get("grade_id", "").removesuffix("_test")
                own = [h for h in headings if re.search(rf"\b{re.escape(exercise)}\b", h)]
                cell.metadata[ITEM] = item_name(exercise, own[0] if own else above)
        return nb, resources
