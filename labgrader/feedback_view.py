"""Feedback a student can read (``labgrader feedback``, nbgrader's GenerateFeedback):
each graded item is named by its exercise id and heading in the page's contents, every
failed check's message is shown whole, wrapped to the page, and no cell shows what the
grading kernel printed, only the lab's verdicts (``VerdictsOnly``), and no comment but a
trainer's (``GradesForStudents``; the course's template
``autograde/templates/lab_feedback``, wired in ``autograde/nbgrader_config.py``).
"""
from __future__ import annotations

import os
import re

from nbgrader.preprocessors import GetGrades, NbGraderPreprocessor

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


class VerdictsOnly(NbGraderPreprocessor):
    """Feedback: no output of the student's grading kernel, only the lab's verdicts (a test
    cell's one error, written by ``pipeline.TrustedChecks``; nothing on a pass).

    The kernel ran beside the judge, whose child asked the student's code about hidden
    cases; a kernel that heard of them (over the page cache, tests/grading/hostile/redteam12)
    could print them into any cell. The student's own notebook has their outputs, and the
    trainer's autograded notebook (the formgrader) keeps every one."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code":
            meta = cell.metadata.get("nbgrader", {})
            test = meta.get("grade") and not meta.get("solution")
            cell.outputs = [o for o in cell.get("outputs", [])
                            if test and o.get("output_type") == "error"][:1]
            cell.execution_count = None  # the kernel's number, which a kernel can set
        return cell, resources


class GradesForStudents(GetGrades):
    """nbgrader's ``GetGrades`` for the feedback, where an answer's comment is a trainer's own
    words only (``manual_comment``). The lab's automatic comment stays for the trainer: a
    review's reasons (which may name a classmate whose answer is alike) and a partial
    verdict's numbers (the test cell's verdict shows them already)."""

    def _get_comment(self, cell, resources) -> None:
        comment = self.gradebook.find_comment(cell.metadata["nbgrader"]["grade_id"],
                                              self.notebook_id, self.assignment_id,
                                              self.student_id)
        cell.metadata.nbgrader["comment"] = comment.manual_comment
