"""Running a submission's notebook for grading: nbgrader's Execute with the kernel in the
submission's sandbox (``sandbox``, ``kernel``), in autograde mode, surviving dead kernels
and kernels whose messages cannot be read (``KernelMessageError``), and stopping at the
sandbox's limits (what it saw goes to ``statuses``).
"""
from __future__ import annotations

import copy
import os
import time

import nbformat
from nbclient.exceptions import CellControlSignal, CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer, Unicode

from labsupport.shellwait import SlicedWait
from . import demos, phases, seal, view
from .kernel_messages import KernelMessageError, MessageCheck, check_channels
from .kernel import BoxedKernelManager
from .sandbox import Sandbox
from .statuses import EVENTS, cell_events, message_size

PENDING = "labsupport_pending"  # resources key: the notebook's grading begun before its kernel
#                                 (``pipeline.StartTrusted``), cancelled when the kernel's run fails


def error_output(ename: str, evalue: str) -> NotebookNode:
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue,
                                  traceback=[f"\x1b[0;31m{ename}\x1b[0m: {evalue}"])


def course_root(config) -> str:
    from nbgrader.coursedir import CourseDirectory
    return CourseDirectory(config=config).root


def visible_part(cell) -> str | None:
    """A graded test cell's source before nbgrader's hidden-tests marker (None for any other
    cell, or a test cell without hidden tests): what its kernel runs."""
    from .trusted import HIDDEN_MARK, _phases
    meta = cell.get("metadata", {}).get("nbgrader", {})
    if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution") \
            or HIDDEN_MARK not in cell.source:
        return None
    return _phases(cell.source)[0][1]


class AutogradeExecute(SlicedWait, Execute):
    """nbgrader's Execute, with the kernel in the submission's sandbox, in autograde mode,
    dead kernels survived, and each reply awaited in short polls (``SlicedWait``).

    The kernel runs in a fresh ``box.Box`` per notebook (``c.Sandbox``: namespaces and a
    grading user as root, plain rlimits otherwise; ``mode='off'`` runs it as you); in
    namespaces mode the box shows, at the genuine package folder, the package with every
    exercise's references stubs (``kernel_view``, ``view.for_kernel``): no kernel holds the
    lab's answers, for itself or for any judge. Its
    environment gets ``LAB_AUTOGRADE=1`` (``labsupport.autograde_mode()``): demos and
    measurements run short and no cell waits on a frontend; no key of any hidden case, nor
    the run's seed (``seed.without_seed``). Its test cells decide nothing:
    ``pipeline.TrustedChecks`` replaces their outputs with the judge's verdict, so each runs
    its visible part alone (``visible_part``: the hidden cases are the judge's; whether the
    visible part passed in the notebook is what ``TrustedChecks`` asks of the kernel). Code
    cells that no graded cell
    depends on are not run at all (``skip_demos``; ``demos.demo_cells``): they get a one-line
    note instead of outputs. When a cell kills the kernel (``os._exit``, out of memory),
    that cell gets an error, a fresh kernel replays the cells before it (their outputs
    kept) and grading goes on. When the box is killed (the notebook's time, a stop, the
    output limit), the cells after it get ``NotRun`` and the status goes to the gradebook.
    A kernel whose messages cannot be read (``KernelMessageError``: code in it wrote garbage,
    malformed or forged messages on its own sockets) is stopped the same way, the status
    naming the cell; without a box it is restarted as after a death. Either way the judge
    still grades every answer (``pipeline.TrustedChecks``).
    """

    box = None  # this notebook's sandbox.Box while it runs
    max_restarts = Integer(3, help="kernel deaths survived per notebook").tag(config=True)
    kernel_view = Unicode("", help="the grading kernels' package folder (view.for_kernel), "
                          "built by the grading run before its jobs; empty: built here").tag(config=True)
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
        from .seed import without_seed
        env = without_seed(dict(kwargs.pop("env", None) or os.environ))
        env.update(LAB_AUTOGRADE="1", MPLBACKEND=env.get("MPLBACKEND", "Agg"))
        env.pop(DIR_ENV, None)  # the grader's key stays with the grader
        await super().async_start_new_kernel(env=env, **kwargs)

    start_new_kernel = run_sync(async_start_new_kernel)

    async def async_start_new_kernel_client(self):
        kc = await super().async_start_new_kernel_client()
        self._check = MessageCheck()
        check_channels(kc, self._check)
        return kc

    # nbclient's sync setup calls the base class's method bound here: this makes it call the
    # one above (and ``SlicedWait``'s, which that calls)
    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if self.box is not None:
            km.box = self.box
        return km

    def preprocess(self, nb, resources=None, km=None):
        self._dead: set[int] = set()
        self._stopped, self._events = None, []  # (see _stop)
        self._skip = demos.demo_cells(nb) if self.skip_demos else set()
        root = course_root(self.config)
        info = (resources or {}).get("nbgrader", {})
        # the baseline, made before this process runs any student code; checked before each notebook
        seal.session(root).check(f"the submission before {info.get('student', '?')}'s")
        self._t0, self._first = time.perf_counter(), None  # phases: start-up, import, cells
        sandbox = Sandbox(config=self.config)
        views = None
        if sandbox.resolved_mode() == "namespaces":
            views = {str(view.ROOT): self.kernel_view or str(view.for_kernel())}
        self.box = sandbox.open(root, views=views)
        if self.box is not None:
            self.kernel_manager_class = BoxedKernelManager
        try:
            nb, resources = super().preprocess(nb, resources, km)
        except BaseException:
            pending = (resources or {}).get(PENDING)  # the trusted pass begun beside this run
            if pending is not None:
                pending.judging.cancel()
            raise
        finally:
            self._count_phase(time.perf_counter())
            events = self.box.close() if self.box is not None else []
        resources.setdefault(EVENTS, []).extend(
            [(None, e) for e in events] + self._events + cell_events(nb, self.timeout))
        return nb, resources

    def process_message(self, msg, cell, cell_index):
        try:
            if (self.box is not None and msg.get("msg_type") != "status"
                    and not self.box.count_output(message_size(msg))):
                return None  # past the output limit: dropped (the box is being killed)
            return super().process_message(msg, cell, cell_index)
        except CellControlSignal:
            raise  # the cell's end
        except Exception as exc:  # noqa: BLE001 - a message nbclient cannot turn into an output
            raise KernelMessageError(f"a {str(msg.get('msg_type'))[:40]!r} message nbclient cannot "
                                     f"use ({type(exc).__name__}: {str(exc)[:160]})") from exc

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
        stopped = self.box.events[0] if self.box is not None and self.box.events else self._stopped
        if stopped:
            if cell.cell_type == "code":
                cell.outputs = [error_output("NotRun", f"not run: {stopped}")]
            return cell, resources
        self._check.cell = index
        try:
            visible = visible_part(cell)
            if visible is None:
                return super().preprocess_cell(cell, resources, index)
            run = copy.deepcopy(cell)
            run.source = visible
            run, resources = super().preprocess_cell(run, resources, index)
            cell.outputs, cell.execution_count = run.outputs, run.get("execution_count")
            self.nb.cells[index] = cell  # its source whole (the gradebook's checksum)
            return cell, resources
        except KernelMessageError as exc:
            return self._unreadable(cell, index, exc)
        except CellTimeoutError:  # the interrupt did not stop it: the kernel is lost
            if self._check.replied(index):  # no: it replied, and its outputs never ended
                return self._unreadable(cell, index, KernelMessageError(
                    f"a reply to it but no 'idle' within {self.iopub_timeout:g} s after"))
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

    def _unreadable(self, cell, index: int, exc: KernelMessageError):
        """Stop a kernel whose messages could not be read in cell ``index``: the cell gets the
        error; with a box, the box is killed and the cells after it are not run; without
        one, the kernel is restarted as after a death (``_revive``) while restarts last."""
        restart = self.box is None and len(self._dead | {index}) <= self.max_restarts
        after = "a fresh kernel ran the cells after it" if restart else \
            "the cells after this one were not run"
        cell.outputs = [error_output("KernelMessageError", f"the kernel sent {exc}; it was "
                                     f"stopped and {after}")]
        self.nb.cells[index] = cell
        why = f"the kernel's messages could not be read in cell {index + 1}: {exc}; " \
              "the kernel was stopped"
        if restart:
            self._events.append((index, why))
            self._dead.add(index)
            self._revive(index)
        else:
            self._stop(index, why)
        return cell, self.resources

    def _stop(self, index: int, why: str) -> None:
        """No more cells run in this notebook: each gets ``NotRun`` with ``why``."""
        if self.box is not None:
            self.box.kill(why)  # its events say why; the cells after it read them
        else:
            self._events.append((index, why))
            self._stopped = why

    def _revive(self, upto: int) -> None:
        """Restart the kernel and replay the cells before ``upto``; a kernel whose messages
        cannot be read meanwhile stops the notebook (``_stop``)."""
        self.log.warning("kernel lost in cell %d: restarting and replaying cells before it", upto)
        try:
            run_sync(self.km.restart_kernel)(now=True)
            run_sync(self.kc.wait_for_ready)(timeout=self.startup_timeout)
            for j in range(upto):
                kept = self.nb.cells[j]
                if kept.cell_type != "code" or j in self._dead or j in self._skip:
                    continue
                again = copy.deepcopy(kept)
                again.source = visible_part(kept) or kept.source
                try:
                    self._check.cell = j
                    self.execute_cell(again, j, store_history=False)
                except DeadKernelError:
                    self._dead.add(j)
                    run_sync(self.km.restart_kernel)(now=True)
                    run_sync(self.kc.wait_for_ready)(timeout=self.startup_timeout)
                finally:
                    self.nb.cells[j] = kept
        except KernelMessageError as exc:
            self._stop(upto, f"the kernel's messages could not be read while the cells before "
                             f"cell {upto + 1} were replayed: {exc}; the kernel was stopped")
