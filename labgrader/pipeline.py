"""The lab's steps in nbgrader's pipelines (wired in ``autograde/nbgrader_config.py``).

Release: ``release.ClearSolutionsById``. Feedback: ``ShortTestErrors``. Autograde:
``execute.AutogradeExecute`` (the kernel in the submission's sandbox, in autograde mode,
with this run's hidden keys, never its seed), ``TrustedChecks`` (cell roles from the
gradebook, ``roles``; every answer cell graded again alone against the installed checks, in
a fresh box, and audited; keyed answers judged against the grader's key; the verdicts
replace the test cells' outputs), ``JudgedSaveAutoGrades`` (scores from the verdicts
only: full points on a pass, a ``PartialScore`` verdict's share of them, its numbers kept as
the answer's comment), ``FlagForReview`` (what the audit
and the sandbox found goes to the gradebook: the formgrader, ``grade autograde`` and
``grade export`` show it, see ``review``) and ``inert.InertOutputs`` (nothing a student
wrote runs in a browser).
"""
from __future__ import annotations

import functools
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbgrader.preprocessors import Execute, NbGraderPreprocessor, SaveAutoGrades
from traitlets import Bool, Float, Unicode

from labsupport.exercises import partial

from . import audit, cellcode, keyed, phases, seal, similarity, trusted
from .execute import PENDING, AutogradeExecute, course_root, error_output
from .roles import Roles, roles
from .sandbox import Sandbox
from .statuses import EVENTS, event_reviews

REVIEW = "labsupport_review"  # resources key: grade_id -> why a trainer should look
VERDICTS = "labsupport_verdicts"  # resources key: test id -> the judge passed it (or the share
#                                   of its points a ``PartialScore`` verdict gave)
PARTIAL = "labsupport_partial"  # resources key: test id -> a PartialScore verdict's message


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


def _nbg(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


@dataclass
class Plan:
    """One notebook's grading as its sources decide it, before its kernel runs
    (``TrustedChecks.start``): its roles, the items the judge grades, what is known already
    (the audit's flags, unanswered items) and the trusted pass under way."""
    found: Roles
    keys: keyed.Keys
    items: list = field(default_factory=list)
    review: dict[str, str] = field(default_factory=dict)  # test id -> why a trainer looks
    zero: dict[str, tuple[str, str]] = field(default_factory=dict)  # test id -> (error, message)
    elsewhere: list[tuple[int, str]] = field(default_factory=list)  # (cell index, why): not an answer
    judging: Judging | None = None

    def flag(self, tid: str, ename: str, why: str) -> None:
        """``tid`` scores 0 with ``ename: why``, and a trainer looks."""
        self.review[tid] = why
        self.zero[tid] = (ename, why)


class Judging:
    """One notebook's trusted pass, in a thread of its grading job, started before the
    notebook's kernel: the two run side by side, each in its own box (fresh namespaces,
    cgroup and /tmp), so neither waits on the other's idle time (a kernel's message round
    trips, a check's real-time waits). Nothing passes between them: the judge's items come
    from the sources alone, and its verdicts are read after the kernel ended."""

    def __init__(self, checks: TrustedChecks, items: list, timeout_s: float):
        self.compiled: dict[str, list[str]] = {}  # grade_id -> what its child compiled
        self.events: list[str] = []  # the box's (limits hit, kills)
        self.seconds = 0.0  # the pass's own wall time
        self._box, self._out, self._error = None, None, None
        self._cancelled, self._lock = threading.Event(), threading.Lock()
        self._thread = threading.Thread(target=self._run, args=(checks, items, timeout_s),
                                        name="labsupport-judge", daemon=True)
        self._thread.start()

    def _run(self, checks: TrustedChecks, items: list, timeout_s: float) -> None:
        t0 = time.perf_counter()
        try:
            self._out = checks._run_trusted(items, timeout_s, self)
        except BaseException as exc:  # noqa: BLE001 - raised again in the job, by ``result``
            self._error = exc
        finally:
            self.seconds = time.perf_counter() - t0

    def hold(self, box):
        """Keep the pass's ``box`` for ``cancel`` (killed at once if cancelled already)."""
        with self._lock:
            self._box = box
        if self._cancelled.is_set() and box is not None:
            box.kill("grading stopped")
        return box

    def cancel(self) -> None:
        """The notebook's grading failed before its verdicts were read: kill the pass."""
        self._cancelled.set()
        with self._lock:
            box = self._box
        if box is not None:
            box.kill("grading stopped")

    def result(self) -> dict:
        """grade_id -> (status, message, answer), once the pass has ended (its error, raised)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._out


def _memo_read(folder: str) -> dict[str, bytes]:
    """The run's memo (``TrustedChecks.memo``): name -> pickled cases; {} without one."""
    if not folder or not os.path.isdir(folder):
        return {}
    return {f.name.replace("__", "/"): f.read_bytes() for f in Path(folder).iterdir()
            if not f.name.startswith(".")}


def _memo_keep(folder: str, built: dict[str, bytes]) -> None:
    """Add ``built`` to the run's memo, each file whole (another job may read it now)."""
    if not folder:
        return
    for name, data in built.items():
        dest = Path(folder) / name.replace("/", "__")
        part = dest.with_name(f".{dest.name}.{os.getpid()}")
        part.write_bytes(data)
        os.replace(part, dest)


class StartTrusted(NbGraderPreprocessor):
    """Before the kernel runs: ``TrustedChecks.start`` (the notebook's trusted pass begins,
    beside its kernel); ``TrustedChecks``, after the kernel, reads its verdicts."""

    def preprocess(self, nb, resources):
        resources[PENDING] = TrustedChecks(config=self.config).start(nb, resources)
        return nb, resources


class TrustedChecks(NbGraderPreprocessor):
    """Grade every answer cell again, alone, against the installed checks; audit what the
    student wrote; judge keyed answers (the knowledge check) against the grader's key.

    The judge alone scores: every answered item goes to the trusted pass, whatever its
    test cell did in the kernel, and each graded test cell's outputs are then *replaced* by
    the verdict — none on a pass, one error written here on a fail — so nothing the
    submission displayed (from an event hook, a thread, a forged result) reaches nbgrader's
    ``determine_grade``; ``JudgedSaveAutoGrades`` scores from the verdicts alone.

    Roles come from the gradebook (``roles``): an item whose answer cell is missing or
    duplicated scores 0 and goes to review with the reason. Each code cell the student wrote
    is audited as its kernel ran it (``cellcode``, ``audit``; an answer cell also for the
    lab's reference implementations of its exercise). An item that the judge fails although
    its kernel test cell passed, that changes the grading machinery, or that ran the lab's
    own implementation scores 0 with the reason and goes to manual review; so does a flagged
    answer cell. An honest wrong answer scores 0 with the judge's message (on a hidden case
    without any text the student's code wrote: ``trusted.judge``), not flagged. A keyed
    answer comes back from the trusted pass as a plain value and is judged here, in the
    grader's process: a wrong one scores 0 with the message a student may read (where to
    re-read), not flagged. A cell outside any exercise that the audit flags puts every item
    to review, scores kept.
    """

    timeout = Float(None, allow_none=True,
                    help="seconds per answer cell in the trusted pass (default: Execute.timeout)"
                    ).tag(config=True)
    memo = Unicode("", help="a folder of the grader's (none: no memo) where a grading run "
                   "keeps the checks' costly cases (labsupport.exercises.casememo), handed "
                   "to every judge").tag(config=True)
    fill_memo = Bool(False, help="keep in ``memo`` what this judge built: the preflight only "
                     "(the instructors' solutions; no student code ran beside)").tag(config=True)

    def _run_trusted(self, items: list, timeout: float, judging: Judging) -> dict:
        """The trusted pass in a fresh box; a pass that does not finish fails every item.
        ``judging`` gets the box's events and what each item's code compiled while graded
        (for the review), and may kill the box (``Judging.cancel``)."""
        box = judging.hold(Sandbox(config=self.config).open(course_root(self.config), judge=True)) \
            if items else None
        memo = _memo_read(self.memo)
        given = set(memo)
        try:
            run = functools.partial(box.run, what="the trusted pass") if box else None
            out = trusted.run_items(items, timeout, run=run, compiled=judging.compiled, memo=memo)
            if self.fill_memo:
                _memo_keep(self.memo, {k: v for k, v in memo.items() if k not in given})
            return out
        except trusted.GradingEnvironmentError:
            raise  # no grade from a box that cannot run the lab: this notebook fails
        except (RuntimeError, OSError) as exc:
            why = "; ".join(box.events) if box is not None and box.events else str(exc)[:300]
            return {i.grade_id: ("fail", f"the trusted pass did not finish: {why}", None)
                    for i in items}
        finally:
            if box is not None:
                judging.events = box.close()

    def start(self, nb, resources) -> Plan:
        """What this notebook's grading needs of its sources alone (roles, the audit, the
        items), and its trusted pass started (``Judging``): before its kernel runs, beside it
        (``StartTrusted``), or here when nothing started it."""
        from nbgrader.coursedir import CourseDirectory
        found = roles(nb, resources, self.config)
        plan = Plan(found, keyed.Keys(CourseDirectory(config=self.config).root))
        flag = plan.flag
        for i, c in enumerate(nb.cells):
            if c.cell_type != "code" or not c.source.strip():
                continue
            aid = found.answer_of(i)
            if aid is None and c.source.strip() in found.lab:
                continue  # the lab's own cell, as released (restored test cells included)
            reasons = audit.audit(c.source, [aid] if aid else found.answers)
            if not reasons:
                continue
            why = "; ".join(reasons[:4])
            if aid and f"{aid}_test" in found.tests:
                flag(f"{aid}_test", "ManualReview",
                     f"flagged for manual review: the answer cell {aid} {why}")
            else:
                plan.elsewhere.append((i, f"cell {i + 1} {why}"))
        for tid, source in found.tests.items():
            aid = tid.removesuffix("_test")
            if aid in found.problems:
                flag(tid, "ManualReview", found.problems[aid])
                continue
            if aid not in found.at or tid in plan.zero:
                continue  # not an answer's test, or already 0
            if nb.cells[found.at[aid]].source.strip() == found.stubs.get(aid):
                plan.zero[tid] = ("NotAnswered", f"{aid}: the answer cell is the release's, unchanged")
                continue  # its stub fails alone (tests/grading/test_exercises.py): no need to ask
            plan.items.append(trusted.Item(tid, cellcode.python_source(nb.cells[found.at[aid]].source),
                                           source, target=keyed.target(aid)))
        timeout = self.timeout or float(self.config.Execute.get("timeout", None) or 60)
        plan.judging = Judging(self, plan.items, timeout)
        return plan

    def preprocess(self, nb, resources):
        plan = resources.pop(PENDING, None) or self.start(nb, resources)
        found, review, zero, keys, items = plan.found, plan.review, plan.zero, plan.keys, plan.items
        for i, why in plan.elsewhere:  # shown after the kernel ran: its run replaced the outputs
            nb.cells[i].outputs.append(nbformat.v4.new_output(
                "stream", name="stdout", text=f"[labsupport] flagged for manual review: {why}\n"))
        flagged_elsewhere = [why for _, why in plan.elsewhere]
        flag = plan.flag
        cells = {t: next((c for c in nb.cells if c.cell_type == "code"
                          and _nbg(c).get("grade_id") == t), None) for t in found.tests}
        t0 = time.perf_counter()
        results = plan.judging.result()
        phases.add("waited", time.perf_counter() - t0)
        info = resources.get("nbgrader", {})  # the kernel and the judge ran: did either change
        seal.session(course_root(self.config)).check(  # what the grader trusts? (plain mode)
            f"{info.get('student', '?')}/{info.get('notebook', '?')}")
        phases.add("judge", plan.judging.seconds)
        resources.setdefault(EVENTS, []).extend((None, e) for e in plan.judging.events)
        compiled = plan.judging.compiled
        passed, partial_of = set(), {}
        for item in items:
            tid = item.grade_id
            status, message, answer = results.get(
                tid, ("fail", "the trusted pass gave no result", None))
            kernel_passed = cells[tid] is not None and not any(  # its visible part alone
                o.get("output_type") == "error" for o in cells[tid].outputs) \
                and not message.endswith(trusted.HIDDEN_NOTE)
            if status == "pass" and item.target is not None:
                wrong, unkeyed = keys.judge(tid.removesuffix("_test"), answer)
                if unkeyed:
                    flag(tid, "ManualReview", unkeyed)
                elif wrong:
                    zero[tid] = ("AssertionError", wrong)  # wrong, not suspicious: no review
                else:
                    passed.add(tid)
            elif status == "pass":
                passed.add(tid)
            elif status == "reference":
                flag(tid, "ReferenceReuse",
                     f"reuses the lab's reference implementation: {message}")
            elif status == "tampered" or kernel_passed:  # the kernel said pass: ask why
                flag(tid, "TrustedCheckFailed", f"not passed against the installed checks "
                                                f"(the judge): {message}")
            else:  # an honest wrong answer: the judge's message, no review
                ename, _, evalue = message.partition(": ")
                zero[tid] = (ename, evalue) if evalue and ename.isidentifier() else ("Error", message)
                if partial.share(message) is not None:  # a share of the points (ex09_1)
                    partial_of[tid] = (partial.share(message), evalue.removesuffix(trusted.HIDDEN_NOTE))
        for tid, cell in cells.items():  # the judge's verdict is all a test cell shows
            if cell is None:
                continue
            if tid in passed:
                cell.outputs = []
            else:
                cell.outputs = [error_output(*zero.get(tid, ("NotGraded", f"{tid.removesuffix('_test')}"
                                                                ": no answer was graded")))]
        answers = {a: cellcode.python_source(nb.cells[i].source) for a, i in found.at.items()
                   if f"{a}_test" in found.tests}
        try:
            graded = set(found.at.values())  # the answer cells, and the test cells below
            plain = {f"code cell {i + 1}": cellcode.python_source(c.source)
                     for i, c in enumerate(nb.cells) if c.cell_type == "code" and i not in graded
                     and _nbg(c).get("grade_id") not in found.tests}
            copies = similarity.class_reviews(
                self.config, resources.get("nbgrader", {}), answers,
                {t.removesuffix("_test"): s for t, s in compiled.items()}, plain)
        except Exception as exc:  # noqa: BLE001 - this submission's review only, never the class
            copies = {f"{a}_test": f"the copy check could not run ({type(exc).__name__})"
                      for a in answers}
        for tid, why in copies.items():  # copies: review, score kept
            review[tid] = f"{review[tid]}; {why}" if tid in review else why
        if flagged_elsewhere:
            note = "flagged for manual review: " + "; ".join(flagged_elsewhere)[:900]
            for tid in found.tests:
                review.setdefault(tid, note)
        resources[REVIEW] = review
        resources[VERDICTS] = {tid: partial_of[tid][0] if tid in partial_of else tid in passed
                               for tid in found.tests}
        resources[PARTIAL] = {tid: why for tid, (_, why) in partial_of.items()}
        return nb, resources


class JudgedSaveAutoGrades(SaveAutoGrades):
    """nbgrader's ``SaveAutoGrades``, with a test cell's score taken from the judge's verdict
    (``TrustedChecks``: full points on a pass, a ``PartialScore`` verdict's share of them,
    whose message becomes the answer's comment; else 0) and never from the cell's outputs.
    Written answers go through nbgrader's own rule (a trainer grades them). A cell nbgrader
    cannot score (its own exception) scores 0 and is flagged; the rest of the notebook is
    graded."""

    def _add_score(self, cell, resources) -> None:
        gid = str(_nbg(cell).get("grade_id", "?"))
        try:
            if cell.cell_type == "code" and not _nbg(cell).get("solution"):
                info = (self.notebook_id, self.assignment_id, self.student_id)
                grade = self.gradebook.find_grade(gid, *info)
                verdict = (resources.get(VERDICTS) or {}).get(gid)
                share = 1.0 if verdict is True else verdict if type(verdict) is float else 0.0
                grade.auto_score = float(grade.max_score) * share
                why = (resources.get(PARTIAL) or {}).get(gid)
                if why:  # the verdict's numbers, where the leaderboard reads them
                    self.gradebook.find_comment(gid.removesuffix("_test"), *info
                                                ).auto_comment = why[:2000]
                grade.needs_manual_grade = grade.manual_score is not None
                self.gradebook.db.commit()
                return
            super()._add_score(cell, resources)
        except Exception as err:  # noqa: BLE001 - one cell nbgrader cannot score stops nothing
            self.log.error("cell %s cannot be scored: %s", gid, err)
            self.gradebook.db.rollback()
            why = f"nbgrader could not score this cell ({type(err).__name__}); scored 0"
            resources.setdefault(REVIEW, {})[gid] = why
            try:
                grade = self.gradebook.find_grade(gid, self.notebook_id, self.assignment_id,
                                                  self.student_id)
                grade.auto_score, grade.needs_manual_grade = 0.0, True
                self.gradebook.db.commit()
            except Exception:  # noqa: BLE001 - not a cell of the gradebook: nothing to save
                self.gradebook.db.rollback()


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
                kept = (resources.get(PARTIAL) or {}).get(gid)  # a partial verdict's numbers
                try:
                    comment = gb.find_comment(gid.removesuffix("_test"), *key)
                    comment.auto_comment = (f"{why} | {kept}" if kept else why)[:2000]
                except MissingEntry:
                    pass
            gb.find_submission_notebook(*key).flagged = True
            gb.db.commit()
        return nb, resources


class DropEmptyMetadata(NbGraderPreprocessor):
    """After nbgrader's ``DeduplicateIds``: a cell whose id it took away (a copy of an answer
    or test cell) keeps no empty ``nbgrader`` metadata, which nbgrader's own metadata check
    would refuse, failing the whole submission. The copy is then a cell of the student's;
    ``TrustedChecks`` sees the duplicate in the submitted file and fails that item closed."""

    def preprocess_cell(self, cell, resources, index):
        if "nbgrader" in cell.metadata and not cell.metadata["nbgrader"]:
            del cell.metadata["nbgrader"]
        return cell, resources


def sanitize_preprocessors() -> list:
    """nbgrader's Autograde sanitizing steps, ``DropEmptyMetadata`` after ``DeduplicateIds``."""
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import DeduplicateIds
    out = []
    for p in Autograde.class_traits()["sanitize_preprocessors"].default():
        out.append(p)
        if p is DeduplicateIds:
            out.append(DropEmptyMetadata)
    return out


def autograde_preprocessors() -> list:
    """nbgrader's Autograde pipeline: our Execute, the trusted pass before the grades are
    saved (scored from its verdicts), the review flags after, and the notebook made inert
    for a browser last."""
    from nbgrader.converters import Autograde
    from .inert import InertOutputs
    out = []
    for p in Autograde.class_traits()["autograde_preprocessors"].default():
        out.append({Execute: AutogradeExecute, SaveAutoGrades: JudgedSaveAutoGrades}.get(p, p))
        if p is Execute:
            out.insert(-1, StartTrusted)
            out.append(TrustedChecks)
        if p is SaveAutoGrades:
            out.append(FlagForReview)
    return out + [InertOutputs]
