"""``labgrader autograde --jobs N``: grade submissions side by side, safely.

nbgrader's gradebook is one SQLite file and nbgrader grades one submission at a time
(its issue #174). Here every submission is graded by nbgrader's own pipeline in its own
process (forked from a server that has nbgrader imported), in a private course folder:
copies of the assignment's source and release, the one submission, a copy of the
gradebook. These processes run only the grader's code: the student's code runs in the
submission's sandbox box (``sandbox``), under the job slot's own grading uid, and sees none
of it. When a job finishes, this process — the only writer of the real gradebook — checks
the package seal, copies the grades and comments in, moves the autograded notebooks into
place and prints the flagged items. A submission that hangs, crashes or kills its kernel
costs only itself: its job fails (or times out) and the others go on; a broken seal
stops everything.
"""
from __future__ import annotations

import contextlib
import json
import multiprocessing as mp
import os
import queue
import shutil
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from . import phases, preflight
from .warm import Template

SUBMISSION_TIMEOUT_S = 1800.0  # one student's whole assignment, slow machine included


def _layout(root: Path):
    """The folders of a private course at ``root`` (the lab's layout, as ``_worker`` reads it)."""
    from nbgrader.coursedir import CourseDirectory
    from .course import course_config
    return CourseDirectory(config=course_config(root))


def _private_course(course, student: str, assignment: str, base: Path) -> Path:
    """A course folder with this one submission, copies of its assignment's source and
    release folders and a copy of the gradebook (in the lab's layout, whatever the real
    course's is: the hub's puts ``submitted/`` at the top)."""
    root = base / f"{student}__{assignment}"
    mine = _layout(root)
    for step in ("source", "release"):
        rel = getattr(mine, f"{step}_directory")
        src = course._dir(step) / assignment
        if src.is_dir():
            shutil.copytree(src, root / rel / assignment)
        else:
            (root / rel).mkdir(parents=True, exist_ok=True)
    shutil.copytree(course._dir("submitted") / student / assignment,
                    root / mine.submitted_directory / student / assignment)
    db = Path(mine.db_url.removeprefix("sqlite:///"))
    db.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(course.coursedir.db_url.removeprefix("sqlite:///"), db)
    return root


PRELOAD = ["labgrader.jobserver"]  # what the fork server loads once, for every job


PHASES = "phases.json"  # a job's seconds per phase (``phases``), next to its private course
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def _context():
    """Jobs fork from a server that has nbgrader imported (``spawn`` where fork is missing)."""
    if "forkserver" not in mp.get_all_start_methods():
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def _logged(spec: dict, log: str) -> None:
    """In the job's process: its own process group (killed whole on timeout), output to
    ``log``, and its kernel's math libraries on its share of the cores (no oversubscription)."""
    os.setsid()
    for var in THREAD_VARS:
        os.environ.setdefault(var, str(spec["threads"]))
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for out in (1, 2):
        os.dup2(fd, out)
    try:
        code = _worker(spec)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def _job(ctx, root: Path, student: str, assignment: str, overrides: dict, timeout_s: float,
         threads: int, slots: queue.Queue, stop: threading.Event, on_start=None,
         warm_sockets: list[tuple[str, str]] | None = None):
    """Run one job in a forked process on a free job slot; (ok, seconds, log tail, phases)."""
    t0 = time.perf_counter()
    slot = slots.get()
    if stop.is_set():  # interrupted while waiting for a slot: never started
        slots.put(slot)
        return False, 0.0, "grading stopped", {}
    if on_start is not None:
        on_start(student, assignment)
    try:
        kernel, judge = warm_sockets[slot] if warm_sockets else ("", "")
        spec = {"root": str(root), "student": student, "assignment": assignment,
                "overrides": {**overrides, "Sandbox.slot": slot, "Sandbox.warm": kernel,
                              "Sandbox.warm_judge": judge},
                "threads": threads}
        log = root / "autograde.log"
        proc = ctx.Process(target=_logged, args=(spec, str(log)))
        proc.start()
        while proc.is_alive() and time.perf_counter() - t0 < timeout_s and not stop.is_set():
            proc.join(0.5)
        note = ""
        if proc.is_alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # the job and its kernel
            proc.join()
            note = "\ngrading stopped" if stop.is_set() else f"\ngave up after {timeout_s:g} s"
    finally:
        slots.put(slot)
    ok = proc.exitcode == 0 and not note
    text = log.read_text(errors="replace") if log.exists() else ""
    if proc.exitcode not in (0, 1) and not note:
        note = f"\nits process died (exit code {proc.exitcode})"
    return (ok, time.perf_counter() - t0, "\n".join((text + note).splitlines()[-30:]),
            phases.load(root / PHASES))


def merge(main_db: str, worker_db: str, assignment: str, student: str) -> None:
    """Copy one submission's autograde results from a worker's gradebook into the real one.

    Only what autograde writes is copied (auto scores, review flags, auto comments, late
    penalties, timestamps): a trainer's manual grades in the real gradebook stay.
    """
    from nbgrader.api import Gradebook
    with Gradebook(worker_db) as w, Gradebook(main_db) as m:
        ws = w.find_submission(assignment, student)
        st = ws.student
        m.update_or_create_student(student, first_name=st.first_name, last_name=st.last_name,
                                   email=st.email, lms_user_id=st.lms_user_id)
        m.update_or_create_submission(assignment, student, timestamp=ws.timestamp)
        for wnb in ws.notebooks:
            mnb = m.find_submission_notebook(wnb.name, assignment, student)
            mnb.flagged = wnb.flagged
            mnb.late_submission_penalty = wnb.late_submission_penalty
            for g in wnb.grades:
                mg = m.find_grade(g.name, wnb.name, assignment, student)
                mg.auto_score, mg.extra_credit = g.auto_score, g.extra_credit
                mg.needs_manual_grade = g.needs_manual_grade or mg.manual_score is not None
            for c in wnb.comments:
                m.find_comment(c.name, wnb.name, assignment, student).auto_comment = c.auto_comment
        m.db.commit()


def _install(course, root: Path, student: str, assignment: str) -> None:
    """Put the autograded notebooks in place: copied next to their place, then renamed in
    (an interrupt leaves the old folder or the new one, never half of one)."""
    rel = _layout(root).autograded_directory
    src, dest = root / rel / student / assignment, course._dir("autograded") / student / assignment
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(f".{assignment}.part")
    shutil.rmtree(part, ignore_errors=True)
    shutil.copytree(src, part)
    old = dest.with_name(f".{assignment}.old")
    if dest.exists():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(dest, old)
    os.replace(part, dest)
    shutil.rmtree(old, ignore_errors=True)


def student_line(db_url: str, student: str, assignments: list[str], seconds: float,
                 failed: int) -> str:
    """One line per student at the end of their grading: score, flagged items, seconds."""
    from nbgrader.api import Gradebook, MissingEntry
    from . import review
    score = top = 0.0
    flagged = 0
    with Gradebook(db_url) as gb:
        for a in assignments:
            top += float(gb.find_assignment(a).max_score)
            with contextlib.suppress(MissingEntry):
                score += float(gb.find_submission(a, student).score)
            flagged += len(review.flags(gb, a, student))
    fail = f", {failed} FAILED" if failed else ""
    return (f"done {student}: {score:g}/{top:g} points, {flagged} flagged{fail}, "
            f"{seconds:.0f} s ({len(assignments)} notebook(s))")


def check_jobs(jobs: int) -> None:
    """``ValueError`` unless ``jobs`` (job slots) is in [1, ``JUDGE_UIDS`` − 1]: a slot's
    kernels and its judges each take one uid of a range that size."""
    from .sandbox import JUDGE_UIDS
    if not 1 <= jobs < JUDGE_UIDS:
        raise ValueError(f"--jobs must be in [1, {JUDGE_UIDS - 1}] (got {jobs})")


def autograde(course, assignment: str | None = None, students: list[str] | None = None, *,
              jobs: int = 2, submission_timeout_s: float = SUBMISSION_TIMEOUT_S,
              progress: bool = True, report: list | None = None, force: bool = False,
              warm: bool = True) -> bool:
    """Autograde every submission (of ``assignment``, by ``students``) not graded yet (all
    with ``force``; ``Course.is_graded``) with ``jobs`` workers; ``report`` (a list) gets one
    ``{student, assignment, s, ok, phases}`` per submission. The solutions are graded first,
    as jobs on the same slots, alone (the preflight, ``preflight.mirrored``): grading stops,
    nothing written, unless they get full marks.

    With ``warm`` (and a sandbox), each job slot has a warm template (``warm``): its
    kernels (the preflight's too) start as forks of one process that imported the heavy
    libraries once. The progress bar names what is being graded and an ETA; each student
    ends with one line (``student_line``). Ctrl-C stops the running jobs and returns False:
    every submission merged so far is in the gradebook whole, the others are not (a rerun
    grades them)."""
    from .seed import grader_env
    check_jobs(jobs)
    grader_env()  # one seed for the whole run (the workers inherit it), preflight included
    pairs = course.to_autograde(assignment, students, force)
    if not pairs:
        return course.submitted_any(assignment, students)
    ok, pairs = course.prepare_autograde(pairs)
    mode = course.announce_sandbox()
    threads = max(1, (os.cpu_count() or 1) // jobs)
    templates = [(Template(threads), Template(threads, "judge")) for _ in range(jobs)] \
        if warm and mode != "off" else []
    try:
        for pair in templates:
            for t in pair:
                t.wait_ready()
        with preflight.mirrored(course, [a for _, a in pairs]) as first:
            return _grade(course, pairs, ok, mode, jobs, threads,
                          [(k.socket, j.socket) for k, j in templates],
                          submission_timeout_s, progress, report, first)
    finally:
        for pair in templates:
            for t in pair:
                t.close()


def _grade(course, pairs, ok, mode, jobs, threads, sockets, submission_timeout_s, progress,
           report, first: preflight.Mirror) -> bool:
    """Grade the solutions of ``first`` (the preflight) on ``jobs`` slots, then, once they
    passed (``preflight.conclude``), ``pairs``; ``autograde``'s result."""
    from tqdm import tqdm
    from . import review, seal, similarity, view
    sealed = seal.session(course.root)
    overrides = {f"{cls}.{k}": v for cls in ("Execute", "TrustedChecks", "Sandbox")  # to each job
                 for k, v in course.cfg.get(cls, {}).items()}
    overrides["Sandbox.mode"] = mode
    main_db = course.coursedir.db_url
    failed, broken = [], None
    slots: queue.Queue = queue.Queue()
    for k in range(jobs):
        slots.put(k)
    stop = threading.Event()
    left = {s: sum(1 for x, _ in pairs if x == s) for s, _ in pairs}  # per student
    spent: dict[str, float] = {}
    fails: dict[str, int] = {}
    running: dict[tuple[str, str], None] = {}
    interrupted = False
    with tempfile.TemporaryDirectory(prefix="labsupport-grade-") as tmp:  # 0700: the grader's
        checks = [(preflight.STUDENT, a) for a in first.todo]
        pre_roots = {p: _private_course(first.course, *p, Path(tmp) / "preflight") for p in checks}
        roots = {p: _private_course(course, *p, Path(tmp)) for p in pairs}
        (Path(tmp) / "fingerprints").mkdir()
        (Path(tmp) / "memo").mkdir()  # the checks' costly cases: the preflight's judges build
        #  them, every other reads them; and the kernels' package view (view.for_kernel), built
        #  once a run: both in namespaces mode only (in plain mode a kernel runs as you and
        #  could write there, and the judges unpickle what they read)
        shared = {"TrustedChecks.memo": str(Path(tmp) / "memo"), "AutogradeExecute.kernel_view":
                  str(view.build(view.KERNEL, Path(tmp)) / view.PACKAGE)} if mode == "namespaces" else {}
        preflight_wide = {**overrides, **shared, "TrustedChecks.fill_memo": True}
        classwide = {**overrides, **shared, similarity.CLASS: str(course._dir("submitted")),
                     similarity.CACHE: str(Path(tmp) / "fingerprints")}  # read once per run
        bar = tqdm(total=len(pairs), unit="notebook", desc="", disable=not progress,
                   file=sys.stderr, bar_format="autograde {n_fmt}/{total_fmt} {bar:20} "
                   "[{elapsed}, ETA {remaining}] {desc}")

        def now_grading(student: str, a: str, done: bool = False) -> None:
            if done:
                running.pop((student, a), None)
            else:
                running[student, a] = None
            bar.set_description_str("grading " + ", ".join(f"{s} {x}" for s, x in list(running)))

        def settle(student: str, a: str, good: bool, secs: float, tail: str, phase_s: dict) -> None:
            """One student's job done (the preflight passed): merged, reported, counted."""
            if good:  # the one writer: merge in this thread, one submission at a time
                try:
                    merge(main_db, _layout(roots[student, a]).db_url, a, student)
                    _install(course, roots[student, a], student, a)
                except Exception as exc:  # noqa: BLE001 - costs this submission only
                    good, tail = False, f"merge failed: {type(exc).__name__}: {exc}"
            if not good:
                failed.append((student, a))
                fails[student] = fails.get(student, 0) + 1
                bar.write(tail)
            bar.write(f"{'ok  ' if good else 'FAIL'} autograde {a} {student} ({secs:.1f} s)")
            if report is not None:
                report.append({"student": student, "assignment": a, "s": round(secs, 2),
                               "ok": good, "phases": phase_s})
            if good:
                for line in review.lines(main_db, a, student):
                    bar.write(line)
            spent[student] = spent.get(student, 0.0) + secs
            left[student] -= 1
            if not left[student]:
                mine = sorted({x for s, x in pairs if s == student})
                bar.write(student_line(main_db, student, mine, spent[student],
                                       fails.get(student, 0)))
            bar.update(1)
        ctx = _context()
        futures: dict = {}

        def seal_holds(student: str, a: str) -> bool:
            """The seal after a job; if it broke, everything stops (``broken``)."""
            nonlocal broken
            try:
                others = [f"{s}/{x}" for f, (s, x) in futures.items() if f.running()]
                sealed.check(f"{student}/{a}" + (f" (or {', '.join(others)}, graded at "
                                                 "the same time)" if others else ""))
                return True
            except seal.SealBroken as err:
                broken = err
                stop.set()  # running jobs are killed; the rest never start
                for other in futures:
                    other.cancel()
                return False
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            try:
                futures = {pool.submit(_job, ctx, pre_roots[p], *p, preflight_wide, submission_timeout_s,
                                       threads, slots, stop, now_grading, sockets): p for p in checks}
                found: list[str] = []  # the preflight's jobs, alone on the slots: no student's
                for fut in as_completed(futures):  # code runs beside them (a kernel's CPU flood)
                    student, a = futures[fut]
                    good, _, tail, _ = fut.result()
                    now_grading(student, a, done=True)
                    if not seal_holds(student, a):
                        break
                    if good:  # its grades stay in its private course: only read here
                        mine = _layout(pre_roots[student, a])
                        found += preflight.problems(
                            mine.db_url, pre_roots[student, a] / mine.autograded_directory, [a])
                    else:
                        found.append(f"{a}: grading the solutions failed:\n" + preflight.tail(tail))
                if broken is None:
                    try:
                        preflight.conclude(first, found)
                    except preflight.PreflightFailed as err:
                        bar.close()
                        print(f"FAIL {err}", file=sys.stderr)  # no grade written
                        return False
                    if first.todo:
                        bar.write(f"ok   preflight: the solutions of {', '.join(first.todo)} "
                                  "get full marks")
                    futures = {pool.submit(_job, ctx, roots[p], *p, classwide, submission_timeout_s,
                                           threads, slots, stop, now_grading, sockets): p
                               for p in pairs}
                for fut in as_completed(futures) if broken is None else ():
                    student, a = futures[fut]
                    good, secs, tail, phase_s = fut.result()
                    now_grading(student, a, done=True)
                    if not seal_holds(student, a):
                        failed += [futures[f] for f in futures if not f.done() or f.cancelled()]
                        break
                    settle(student, a, good, secs, tail, phase_s)
            except KeyboardInterrupt:
                interrupted = True
                stop.set()  # the running jobs are killed, the waiting ones never start
                for other in futures:
                    other.cancel()
        bar.close()
    if interrupted:
        done = sum(1 for p in pairs if course.is_graded(*p))
        print(f"interrupted: {done} of {len(pairs)} submission(s) graded and saved; run the same "
              "command again to grade the rest", file=sys.stderr)
        return False
    if broken is not None:
        print(f"FAIL {broken}", file=sys.stderr)
        return False
    if failed:
        print(f"FAIL {len(failed)} submission(s): "
              + ", ".join(f"{a}/{s}" for s, a in sorted(failed)), file=sys.stderr)
    return ok and not failed


def _unsynced() -> None:
    """In a job: its gradebook is a private copy that ``merge`` reads once the job ended, so
    its commits skip the disk flush (SQLite's ``synchronous=OFF``: a job that dies mid-write
    fails whole and is graded again). Each flush cost ~6 ms, ~30 of them a notebook."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    def unsynced(connection, _record) -> None:
        connection.execute("PRAGMA synchronous=OFF")
    event.listen(Engine, "connect", unsynced)


def _worker(spec: dict) -> int:
    from . import seal
    from .course import Course, course_config
    seal.session(spec["root"], compiled=True)  # before any kernel; the parent compiled the package
    _unsynced()
    course = Course(course_config(spec["root"], **spec["overrides"]))
    try:
        return 0 if course._run(f"autograde {spec['assignment']} {spec['student']}",
                                course.api.autograde, spec["assignment"], spec["student"]) else 1
    finally:
        phases.dump(Path(spec["root"]) / PHASES)


if __name__ == "__main__":
    sys.exit(_worker(json.loads(sys.argv[1])))
