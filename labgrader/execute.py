"""Running a submission's notebook for grading: nbgrader's Execute with the kernel in the
submission's sandbox (``sandbox``, ``kernel``), in autograde mode, surviving dead kernels,
and stopping at the sandbox's limits (what it saw goes to ``statuses``).
"""
from __future__ import annotations

import copy
import os
import time

import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer

from labsupport.shellwait import SlicedWait
from . import demos, phases, seal
from .kernel import BoxedKernelManager
from .sandbox import Sandbox
from .seed import notebook_exercises
from .statuses import EVENTS, cell_events, message_size


def error_output(ename: str, evalue: str) -> NotebookNode:
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue,
                                  traceback=[f"\x1b[0;31m{ename}\x1b[0m: {evalue}"])


def course_root(config) -> str:
    from nbgrader.coursedir import CourseDirectory
    return CourseDirectory(config=config).root


class AutogradeExecute(SlicedWait, Execute):
    """nbgrader's Execute, with the kernel in the submission's sandbox, in autograde mode,
    dead kernels survived, and each reply awaited in short polls (``SlicedWait``).

    The kernel runs in a fresh ``box.Box`` per notebook (``c.Sandbox``: namespaces and a
    grading user as root, plain rlimits otherwise; ``mode='off'`` runs it as you). Its
    environment gets ``LAB_AUTOGRADE=1`` (``labsupport.autograde_mode()``): demos and
    measurements run short and no cell waits on a frontend; the keys of the
    notebook's hidden cases, never the run's seed (``seed``). Its test cells decide nothing:
    ``pipeline.TrustedChecks`` replaces their outputs with the judge's verdict. Code cells that no graded cell
    depends on are not run at all (``skip_demos``; ``demos.demo_cells``): they get a one-line
    note instead of outputs. When a cell kills the kernel (``os._exit``, out of memory),
    that cell gets an error, a fresh kernel replays the cells before it (their outputs
    kept) and grading goes on. When the box is killed (the notebook's time, a stop, the
    output limit), the cells after it get ``NotRun`` and the status goes to the gradebook.
    """

    box = None  # this notebook's sandbox.Box while it runs
    _exercises: list = []  # the notebook's exercise ids (its kernel gets their hidden keys)
    max_restarts = Integer(3, help="kernel deaths survived per notebook").tag(config=True)
    skip_demos = Bool(True, help="leave out the code cells no graded cell depends on "
                      "(labgrader.demos): demos and measurements").tag(config=True)

    def on_comm_open_jupyter_widget(self, msg):
        """No front end here, so no stand-in for the Output widget either.

        nbclient's stand-in answers every output it captures with a comm message on the
        shell socket, and a cell that draws into an Output widget (``interactive_output``,
        ``with out: display(…)``) could then wait out Execute.timeout (60 s). Without it the
        outputs land in the cell itself; widget state is still recorded.
        """
        return None

    async def async_start_new_kernel(self, **kwargs):
        from labsupport.exercises.answer_key import DIR_ENV
        from .seed import kernel_env
        env = kernel_env(dict(kwargs.pop("env", None) or os.environ), self._exercises)
        env.update(LAB_AUTOGRADE="1", MPLBACKEND=env.get("MPLBACKEND", "Agg"))
        env.pop(DIR_ENV, None)  # the grader's key stays with the grader
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
        root = course_root(self.config)
        info = (resources or {}).get("nbgrader", {})
        self._exercises = notebook_exercises(nb, str(info.get("notebook", "")))
        # the baseline, made before this process runs any student code; checked before each notebook
        seal.session(root).check(f"the submission before {info.get('student', '?')}'s")
        self._t0, self._first = time.perf_counter(), None  # phases: start-up, import, cells
        self.box = Sandbox(config=self.config).open(root)
        if self.box is not None:
            self.kernel_manager_class = BoxedKernelManager
        try:
            nb, resources = super().preprocess(nb, resources, km)
        finally:
            self._count_phase(time.perf_counter())
            events = self.box.close() if self.box is not None else []
        resources.setdefault(EVENTS, []).extend(
            [(None, e) for e in events] + cell_events(nb, self.timeout))
        return nb, resources

    def process_message(self, msg, cell, cell_index):
        if (self.box is not None and msg.get("msg_type") != "status"
                and not self.box.count_output(message_size(msg))):
            return None  # past the output limit: dropped (the box is being killed)
        return super().process_message(msg, cell, cell_index)

    def _count_phase(self, now: float) -> None:
        """Time since the last mark to its phase: before the first code cell runs, start-up;
        during it, import; after it, cells (``phases``)."""
        name = {None: "startup", "import": "import"}.get(self._first, "cells")
        phases.add(name, now - self._t0)
        self._t0 = now
        if self._first is not None:
            self._first = "cells"

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and cell.source.strip() and self._first is None:
            self._count_phase(time.perf_counter())  # start-up ends: the kernel is ready
            self._first = "import"
            try:
                return self._preprocess_cell(cell, resources, index)
            finally:
                self._count_phase(time.perf_counter())
        return self._preprocess_cell(cell, resources, index)

    def _preprocess_cell(self, cell, resources, index):
        if index in self._skip:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=demos.NOTE)]
            return cell, resources
        if self.box is not None and self.box.events:
            if cell.cell_type == "code":
                cell.outputs = [error_output("NotRun", f"not run: {self.box.events[0]}")]
            return cell, resources
        try:
            return super().preprocess_cell(cell, resources, index)
        except CellTimeoutError:  # the interrupt did not stop it: the kernel is lost
            cell.outputs.append(error_output("Unresponsive", f"still running {self.timeout:g} s after "
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
            cell.outputs.append(error_output("DeadKernelError", "the kernel died while running "
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
