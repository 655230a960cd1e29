"""The lab's steps in nbgrader's pipelines (wired in ``autograde/nbgrader_config.py``).

Release: ``ClearSolutionsById``. Feedback: ``ShortTestErrors``. Autograde:
``execute.AutogradeExecute`` (the kernel in the submission's sandbox, in autograde mode),
``TrustedChecks`` (every answer cell graded again alone against the installed checks, in a
fresh box, and audited), ``FlagForReview`` (what the audit and the sandbox found goes to
the gradebook: the formgrader, ``grade autograde`` and ``grade export`` show it, see
``review``) and ``inert.InertOutputs`` (nothing a student wrote runs in a browser).
"""
from __future__ import annotations

import functools
from pathlib import Path

import nbformat
from nbgrader.preprocessors import ClearSolutions, Execute, NbGraderPreprocessor, SaveAutoGrades
from traitlets import Float

from . import audit, seal, trusted
from .execute import AutogradeExecute, course_root, error_output
from .sandbox import Sandbox
from .statuses import EVENTS, event_reviews

STUB = 'raise NotImplementedError("{grade_id}: write your {what} here")'
REVIEW = "labsupport_review"  # resources key: grade_id -> why a trainer should look


class ClearSolutionsById(ClearSolutions):
    """nbgrader's ClearSolutions, but the stub names its exercise id (``ex02_1: …``)."""

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.cell_type != "code" or not grade_id:
            return super().preprocess_cell(cell, resources, cell_index)
        what = "answer" if grade_id.startswith("kc") else "code"
        saved = self.code_stub
        self.code_stub = {**saved, "python": STUB.format(grade_id=grade_id, what=what)}
        try:
            return super().preprocess_cell(cell, resources, cell_index)
        finally:
            self.code_stub = saved


class ShortTestErrors(NbGraderPreprocessor):
    """Feedback: a failing test cell shows only ``Error: message``, not its traceback.

    IPython's traceback prints the lines around the failing one — the hidden tests
    included — so test cells keep just the error's name and the check's message.
    """

    def preprocess_cell(self, cell, resources, cell_index):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    out["traceback"] = [f"\x1b[0;31m{out['ename']}\x1b[0m: {out['evalue']}"]
        return cell, resources


def generate_assignment_preprocessors() -> list:
    """nbgrader's GenerateAssignment pipeline with ClearSolutions swapped for ours."""
    from nbgrader.converters import GenerateAssignment
    default = GenerateAssignment.class_traits()["preprocessors"].default()
    return [ClearSolutionsById if p is ClearSolutions else p for p in default]


def _nbg(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


class TrustedChecks(NbGraderPreprocessor):
    """Grade every answer cell again, alone, against the installed checks; audit the rest.

    A test cell that passed in the notebook but fails here gets an error output (so nbgrader
    scores it 0) saying why, and goes to manual review. A code cell the audit flags puts its
    items (or, for a cell outside any exercise, the whole notebook) to manual review; a
    flagged answer cell also scores 0 until a trainer grades it.
    """

    timeout = Float(None, allow_none=True,
                    help="seconds per answer cell in the trusted pass (default: Execute.timeout)"
                    ).tag(config=True)

    def _known_sources(self, resources) -> set[str]:
        """The lab's own code cells (the release's): the student did not write these."""
        from nbgrader.coursedir import CourseDirectory
        info = resources.get("nbgrader", {})
        cd = CourseDirectory(config=self.config)
        known = set()
        for folder in (cd.release_directory, cd.source_directory):
            path = Path(cd.root) / folder / info.get("assignment", "") / f"{info.get('notebook', '')}.ipynb"
            if path.is_file():
                known |= {c.source.strip() for c in nbformat.read(path, 4).cells
                          if c.cell_type == "code" and not _nbg(c).get("solution")}
        return known

    def _run_trusted(self, items: list, timeout: float, resources) -> dict:
        """The trusted pass in a fresh box; a pass that does not finish fails every item."""
        root = course_root(self.config)
        info = resources.get("nbgrader", {})
        seal.session(root).check(f"{info.get('student', '?')}/{info.get('notebook', '?')}")
        box = Sandbox(config=self.config).open(root) if items else None
        try:
            run = functools.partial(box.run, what="the trusted pass") if box else None
            return trusted.run_items(items, timeout, run=run)
        except (RuntimeError, OSError) as exc:
            why = "; ".join(box.events) if box is not None and box.events else str(exc)[:300]
            return {i.grade_id: ("fail", f"the trusted pass did not finish: {why}") for i in items}
        finally:
            if box is not None:
                resources.setdefault(EVENTS, []).extend((None, e) for e in box.close())

    def preprocess(self, nb, resources):
        review: dict[str, str] = {}
        by_id = {_nbg(c).get("grade_id"): c for c in nb.cells if _nbg(c).get("grade_id")}
        known = self._known_sources(resources)
        flagged_elsewhere = []
        for i, c in enumerate(nb.cells):
            if c.cell_type != "code" or _nbg(c).get("locked") or (
                    c.source.strip() in known and not _nbg(c).get("solution")):
                continue  # markdown, restored test cells, the lab's own cells
            reasons = audit.audit(c.source)
            if not reasons:
                continue
            gid = _nbg(c).get("grade_id")
            why = "; ".join(reasons[:4])
            if gid and f"{gid}_test" in by_id:
                review[f"{gid}_test"] = f"flagged for manual review: the answer cell {gid} {why}"
            else:
                flagged_elsewhere.append(f"cell {i + 1} {why}")
                c.outputs.append(nbformat.v4.new_output(
                    "stream", name="stdout", text=f"[labsupport] flagged for manual review: {why}\n"))
        tests = [c for c in nb.cells if c.cell_type == "code" and _nbg(c).get("grade")
                 and not _nbg(c).get("solution")]
        items = [trusted.Item(_nbg(t)["grade_id"], by_id[_nbg(t)["grade_id"].removesuffix("_test")].source,
                              t.source) for t in tests
                 if _nbg(t)["grade_id"].removesuffix("_test") in by_id
                 and not any(o.output_type == "error" for o in t.outputs)]  # 0 already
        timeout = self.timeout or float(self.config.Execute.get("timeout", None) or 60)
        results = self._run_trusted(items, timeout, resources)
        for t in tests:
            gid = _nbg(t)["grade_id"]
            status, message = results.get(gid, ("pass", ""))
            passed_in_kernel = not any(o.output_type == "error" for o in t.outputs)
            if gid in review:
                t.outputs.append(error_output("ManualReview", review[gid]))
            elif status != "pass":
                if passed_in_kernel:
                    review[gid] = (f"passed in the notebook, but not alone against the "
                                   f"installed checks: {message}")
                    t.outputs.append(error_output("TrustedCheckFailed", review[gid]))
            elif flagged_elsewhere:
                review[gid] = "flagged for manual review: " + "; ".join(flagged_elsewhere)[:900]
        resources[REVIEW] = review
        return nb, resources


class FlagForReview(NbGraderPreprocessor):
    """Write what ``TrustedChecks`` and the sandbox found to the gradebook: items need a
    manual grade, the answer cell carries the reason as a comment, and the notebook is
    flagged (``review`` reads it back for the CLI and the export)."""

    def preprocess(self, nb, resources):
        review = dict(resources.get(REVIEW) or {})
        for gid, why in event_reviews(nb, resources.get(EVENTS) or []).items():
            review[gid] = f"{review[gid]}; {why}" if gid in review else why
        if not review:
            return nb, resources
        from nbgrader.api import Gradebook, MissingEntry
        info = resources["nbgrader"]
        key = (info["notebook"], info["assignment"], info["student"])
        with Gradebook(info["db_url"]) as gb:
            for gid, why in review.items():
                gb.find_grade(gid, *key).needs_manual_grade = True
                try:
                    comment = gb.find_comment(gid.removesuffix("_test"), *key)
                    comment.auto_comment = why[:2000]
                except MissingEntry:
                    pass
            gb.find_submission_notebook(*key).flagged = True
            gb.db.commit()
        return nb, resources


def autograde_preprocessors() -> list:
    """nbgrader's Autograde pipeline: our Execute, the trusted pass before the grades are
    saved, the review flags after, and the notebook made inert for a browser last."""
    from nbgrader.converters import Autograde
    from .inert import InertOutputs
    out = []
    for p in Autograde.class_traits()["autograde_preprocessors"].default():
        out.append(AutogradeExecute if p is Execute else p)
        if p is Execute:
            out.append(TrustedChecks)
        if p is SaveAutoGrades:
            out.append(FlagForReview)
    return out + [InertOutputs]
