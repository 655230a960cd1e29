"""The lab's steps in nbgrader's pipelines (wired in ``autograde/nbgrader_config.py``).

Release: ``ClearSolutionsById``. Feedback: ``ShortTestErrors``. Autograde:
``AutogradeExecute`` (the kernel runs in autograde mode, ``LAB_AUTOGRADE=1``; a dead
kernel costs one cell, not the submission; the cells no graded cell depends on are left
out, see ``demos``), ``TrustedChecks`` (every answer cell graded
again alone against the installed checks, and audited) and ``FlagForReview`` (what the
audit found goes to the gradebook: the formgrader shows it).
"""
from __future__ import annotations

import copy
import os
from pathlib import Path

import nbformat
from nbclient.exceptions import DeadKernelError
from nbclient.util import run_sync
from nbformat import NotebookNode
from nbgrader.preprocessors import ClearSolutions, Execute, NbGraderPreprocessor, SaveAutoGrades
from traitlets import Bool, Float, Integer

from . import audit, demos, trusted

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


def _error(ename: str, evalue: str) -> NotebookNode:
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue,
                                  traceback=[f"\x1b[0;31m{ename}\x1b[0m: {evalue}"])


class AutogradeExecute(Execute):
    """nbgrader's Execute, with the kernel in autograde mode and dead kernels survived.

    The kernel's environment gets ``LAB_AUTOGRADE=1`` (``labsupport.autograde_mode()``):
    demos and measurements run short and no cell waits on a frontend. Only the grading
    kernel sees it, not the Jupyter server that reads this config. Code cells that no
    graded cell depends on are not run at all (``skip_demos``; ``demos.demo_cells``): they
    get a one-line note instead of outputs. When a cell kills the
    kernel (``os._exit``, out of memory), that cell gets an error, a fresh kernel replays
    the cells before it (their outputs kept) and grading goes on.
    """

    max_restarts = Integer(3, help="kernel deaths survived per notebook").tag(config=True)
    skip_demos = Bool(True, help="leave out the code cells no graded cell depends on "
                      "(labsupport.grading.demos): demos and measurements").tag(config=True)

    def on_comm_open_jupyter_widget(self, msg):
        """No front end here, so no stand-in for the Output widget either.

        nbclient's stand-in answers every output it captures with a comm message on the
        shell socket, and a cell that draws into an Output widget (``interactive_output``,
        ``with out: display(…)``) could then wait out Execute.timeout (60 s). Without it the
        outputs land in the cell itself; widget state is still recorded.
        """
        return None

    async def async_start_new_kernel(self, **kwargs):
        env = dict(kwargs.pop("env", None) or os.environ)
        env.update(LAB_AUTOGRADE="1", MPLBACKEND=env.get("MPLBACKEND", "Agg"))
        await super().async_start_new_kernel(env=env, **kwargs)

    start_new_kernel = run_sync(async_start_new_kernel)

    def preprocess(self, nb, resources=None, km=None):
        self._dead: set[int] = set()
        self._skip = demos.demo_cells(nb) if self.skip_demos else set()
        return super().preprocess(nb, resources, km)

    def preprocess_cell(self, cell, resources, index):
        if index in self._skip:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=demos.NOTE)]
            return cell, resources
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._dead.add(index)
            cell.outputs.append(_error("DeadKernelError", "the kernel died while running "
                                       "this cell; the cells after it ran in a fresh kernel"))
            self.nb.cells[index] = cell
            if len(self._dead) <= self.max_restarts:
                self._revive(index)
            return cell, self.resources

    def _revive(self, upto: int) -> None:
        self.log.warning("kernel died in cell %d: restarting and replaying cells before it", upto)
        run_sync(self.km.restart_kernel)(now=True)
        run_sync(self.kc.wait_for_ready)(timeout=self.startup_timeout)
        for j in range(upto):
            kept = self.nb.cells[j]
            if kept.cell_type != "code" or j in self._dead or j in self._skip:
                continue
            try:
                self.execute_cell(copy.deepcopy(kept), j, store_history=False)
            except DeadKernelError:
                self._dead.add(j)
                run_sync(self.km.restart_kernel)(now=True)
                run_sync(self.kc.wait_for_ready)(timeout=self.startup_timeout)
            finally:
                self.nb.cells[j] = kept


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
        results = trusted.run_items(items, timeout)
        for t in tests:
            gid = _nbg(t)["grade_id"]
            status, message = results.get(gid, ("pass", ""))
            passed_in_kernel = not any(o.output_type == "error" for o in t.outputs)
            if gid in review:
                t.outputs.append(_error("ManualReview", review[gid]))
            elif status != "pass":
                if passed_in_kernel:
                    review[gid] = (f"passed in the notebook, but not alone against the "
                                   f"installed checks: {message}")
                    t.outputs.append(_error("TrustedCheckFailed", review[gid]))
            elif flagged_elsewhere:
                review[gid] = "flagged for manual review: " + "; ".join(flagged_elsewhere)[:900]
        resources[REVIEW] = review
        return nb, resources


class FlagForReview(NbGraderPreprocessor):
    """Write what ``TrustedChecks`` found to the gradebook: items need a manual grade, the
    answer cell carries the reason as a comment, and the notebook is flagged."""

    def preprocess(self, nb, resources):
        review = resources.get(REVIEW) or {}
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
    saved, the review flags after."""
    from nbgrader.converters import Autograde
    out = []
    for p in Autograde.class_traits()["autograde_preprocessors"].default():
        out.append(AutogradeExecute if p is Execute else p)
        if p is Execute:
            out.append(TrustedChecks)
        if p is SaveAutoGrades:
            out.append(FlagForReview)
    return out
