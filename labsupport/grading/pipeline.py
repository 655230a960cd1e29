"""The lab's steps in nbgrader's pipelines (wired in ``autograde/nbgrader_config.py``).

Release: ``ClearSolutionsById``. Feedback: ``ShortTestErrors``. Autograde:
``AutogradeExecute`` (the kernel runs in the submission's sandbox, ``sandbox``, in autograde
mode, ``LAB_AUTOGRADE=1``; a dead kernel costs one cell, not the submission; a box killed
for a limit leaves the rest of its cells unrun; the cells no graded cell depends on are
left out, see ``demos``), ``TrustedChecks`` (every answer cell graded again alone against
the installed checks, in a fresh box, and audited) and ``FlagForReview`` (what the audit
and the sandbox found goes to the gradebook: the formgrader, ``grade autograde`` and
``grade export`` show it, see ``review``).
"""
from __future__ import annotations

import copy
import functools
import json
import os
from pathlib import Path

import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat import NotebookNode
from nbgrader.preprocessors import ClearSolutions, Execute, NbGraderPreprocessor, SaveAutoGrades
from traitlets import Bool, Float, Integer

from . import audit, demos, seal, trusted
from .kernel import BoxedKernelManager
from .sandbox import Sandbox

STUB = 'raise NotImplementedError("{grade_id}: write your {what} here")'
REVIEW = "labsupport_review"  # resources key: grade_id -> why a trainer should look
EVENTS = "labsupport_events"  # resources key: [(cell index or None, what the sandbox saw)]


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


def _course_root(config) -> str:
    from nbgrader.coursedir import CourseDirectory
    return CourseDirectory(config=config).root


def _message_size(msg: dict) -> int:
    content = msg.get("content", {})
    if msg.get("msg_type") == "stream":
        return len(content.get("text", ""))
    return len(json.dumps(content, default=str)) + sum(len(b) for b in msg.get("buffers") or [])


# What a cell's error says about a limit: (ename or text in evalue, status)
LIMIT_ERRORS = (("MemoryError", "memory limit (MemoryError)"),
                ("No space left on device", "disk limit (no space left)"),
                ("File too large", "file size limit"),
                ("Resource temporarily unavailable", "process limit (fork failed)"),
                ("DeadKernelError", "the kernel died"))


def cell_events(nb, timeout: float | None) -> list[tuple[int, str]]:
    """(cell index, status) for each cell whose error shows a limit or a timeout."""
    out = []
    for i, cell in enumerate(nb.cells):
        for o in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if o.get("output_type") != "error":
                continue
            if o.get("ename") == "CellTimeoutError":
                out.append((i, f"cell {i + 1} timed out after {timeout:g} s (interrupted)"))
            for key, status in LIMIT_ERRORS:
                if key == o.get("ename") or key in str(o.get("evalue", "")):
                    out.append((i, f"cell {i + 1}: {status}"))
    return out


class AutogradeExecute(Execute):
    """nbgrader's Execute, with the kernel in the submission's sandbox, in autograde mode,
    and dead kernels survived.

    The kernel runs in a fresh ``sandbox.Box`` per notebook (``c.Sandbox``: namespaces and a
    grading user as root, plain rlimits otherwise; ``mode='off'`` runs it as you). Its
    environment gets ``LAB_AUTOGRADE=1`` (``labsupport.autograde_mode()``): demos and
    measurements run short and no cell waits on a frontend. Code cells that no graded cell
    depends on are not run at all (``skip_demos``; ``demos.demo_cells``): they get a one-line
    note instead of outputs. When a cell kills the kernel (``os._exit``, out of memory),
    that cell gets an error, a fresh kernel replays the cells before it (their outputs
    kept) and grading goes on. When the box is killed (the notebook's time, a stop, the
    output limit), the cells after it get ``NotRun`` and the status goes to the gradebook.
    """

    box = None  # this notebook's sandbox.Box while it runs
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

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if self.box is not None:
            km.box = self.box
        return km

    def preprocess(self, nb, resources=None, km=None):
        self._dead: set[int] = set()
        self._skip = demos.demo_cells(nb) if self.skip_demos else set()
        root = _course_root(self.config)
        info = (resources or {}).get("nbgrader", {})
        # the baseline, made before this process runs any student code; checked before each notebook
        seal.session(root).check(f"the submission before {info.get('student', '?')}'s")
        self.box = Sandbox(config=self.config).open(root)
        if self.box is not None:
            self.kernel_manager_class = BoxedKernelManager
        try:
            nb, resources = super().preprocess(nb, resources, km)
        finally:
            events = self.box.close() if self.box is not None else []
        resources.setdefault(EVENTS, []).extend(
            [(None, e) for e in events] + cell_events(nb, self.timeout))
        return nb, resources

    def process_message(self, msg, cell, cell_index):
        if (self.box is not None and msg.get("msg_type") != "status"
                and not self.box.count_output(_message_size(msg))):
            return None  # past the output limit: dropped (the box is being killed)
        return super().process_message(msg, cell, cell_index)

    def preprocess_cell(self, cell, resources, index):
        if index in self._skip:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=demos.NOTE)]
            return cell, resources
        if self.box is not None and self.box.events:
            if cell.cell_type == "code":
                cell.outputs = [_error("NotRun", f"not run: {self.box.events[0]}")]
            return cell, resources
        try:
            return super().preprocess_cell(cell, resources, index)
        except CellTimeoutError:  # the interrupt did not stop it: the kernel is lost
            cell.outputs.append(_error("Unresponsive", f"still running {self.timeout:g} s after "
                                       "the interrupt; the kernel was stopped"))
            self.nb.cells[index] = cell
            if self.box is not None:
                self.box.kill(f"cell {index + 1} timed out after {self.timeout:g} s and ignored "
                              "the interrupt: killed")
                return cell, self.resources
            self._dead.add(index)
            if len(self._dead) <= self.max_restarts:
                self._revive(index)
            return cell, self.resources
        except DeadKernelError:
            self._dead.add(index)
            cell.outputs.append(_error("DeadKernelError", "the kernel died while running "
                                       "this cell; the cells after it ran in a fresh kernel"))
            self.nb.cells[index] = cell
            if len(self._dead) <= self.max_restarts and not (self.box and self.box.events):
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

    def _run_trusted(self, items: list, timeout: float, resources) -> dict:
        """The trusted pass in a fresh box; a pass that does not finish fails every item."""
        root = _course_root(self.config)
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


def event_reviews(nb, events: list) -> dict[str, str]:
    """test grade_id -> the sandbox's statuses for that item. A status of a cell goes to the
    item the cell belongs to; one of the notebook (or of another cell) to every item that
    scored nothing, or to the first item when none did."""
    tests = [c for c in nb.cells if c.cell_type == "code" and _nbg(c).get("grade")
             and not _nbg(c).get("solution")]
    if not tests or not events:
        return {}
    ids = {_nbg(t)["grade_id"] for t in tests}
    zero = [_nbg(t)["grade_id"] for t in tests if any(o.output_type == "error" for o in t.outputs)]
    out: dict[str, list[str]] = {}
    for index, text in events:
        gid = _nbg(nb.cells[index]).get("grade_id") if index is not None else None
        gid = gid if gid in ids else f"{gid}_test" if f"{gid}_test" in ids else None
        for g in [gid] if gid else (zero or [_nbg(tests[0])["grade_id"]]):
            if text not in out.setdefault(g, []):
                out[g].append(text)
    return {g: "sandbox: " + "; ".join(texts) for g, texts in out.items()}


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
