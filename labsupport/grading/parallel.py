"""``labsupport grade autograde --jobs N``: grade submissions side by side, safely.

nbgrader's gradebook is one SQLite file and nbgrader grades one submission at a time
(its issue #174). Here every submission is graded by nbgrader's own pipeline in its own
process, in a private copy of the course: the release and source folders linked, the
one submission copied, a copy of the gradebook. When it finishes, this process — the
only writer of the real gradebook — copies its grades and comments in and moves the
autograded notebooks into place. A submission that hangs, crashes or kills its kernel
costs only itself: its job fails (or times out) and the others go on.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

SUBMISSION_TIMEOUT_S = 1800.0  # one student's whole assignment, slow machine included


def _private_course(course, student: str, assignment: str, base: Path) -> Path:
    """A course folder with this one submission; the rest linked to the real course."""
    root = base / f"{student}__{assignment}"
    for step in ("source", "release"):
        rel = getattr(course.coursedir, f"{step}_directory")
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).symlink_to(course._dir(step).resolve(), target_is_directory=True)
    sub = course.coursedir.submitted_directory
    shutil.copytree(course._dir("submitted") / student / assignment, root / sub / student / assignment)
    db = root / "autograde" / "gradebook.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(course.coursedir.db_url.removeprefix("sqlite:///"), db)
    return root


def _job(root: Path, student: str, assignment: str, overrides: dict, timeout_s: float):
    """Run one worker process; (ok, seconds, log tail)."""
    t0 = time.perf_counter()
    spec = json.dumps({"root": str(root), "student": student, "assignment": assignment,
                       "overrides": overrides})
    try:
        proc = subprocess.run([sys.executable, "-m", __name__, spec], capture_output=True,
                              text=True, timeout=timeout_s)
        ok, log = proc.returncode == 0, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as exc:
        ok, log = False, f"gave up after {timeout_s:g} s\n{exc.stdout or ''}"
    return ok, time.perf_counter() - t0, "\n".join(str(log).splitlines()[-30:])


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
    rel = course.coursedir.autograded_directory
    src, dest = root / rel / student / assignment, course._dir("autograded") / student / assignment
    shutil.rmtree(dest, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(src), dest)


def autograde(course, assignment: str | None = None, students: list[str] | None = None, *,
              jobs: int = 2, submission_timeout_s: float = SUBMISSION_TIMEOUT_S,
              progress: bool = True) -> bool:
    """Autograde every submission (of ``assignment``, by ``students``) with ``jobs`` workers."""
    from tqdm import tqdm
    pairs = course.to_autograde(assignment, students)
    if not pairs:
        return False
    ok, pairs = course.prepare_autograde(pairs)
    timeout = course.cfg.Execute.get("timeout") if "Execute" in course.cfg else None
    overrides = {"Execute.timeout": timeout} if timeout is not None else {}
    main_db = course.coursedir.db_url
    failed = []
    with tempfile.TemporaryDirectory(prefix="labsupport-grade-") as tmp:
        roots = {p: _private_course(course, *p, Path(tmp)) for p in pairs}
        bar = tqdm(total=len(pairs), unit="submission", desc="autograde", disable=not progress,
                   file=sys.stderr)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(_job, roots[p], *p, overrides, submission_timeout_s): p
                       for p in pairs}
            for fut in as_completed(futures):
                student, a = futures[fut]
                good, secs, tail = fut.result()
                if good:  # the one writer: merge in this thread, one submission at a time
                    try:
                        merge(main_db, f"sqlite:///{roots[student, a] / 'autograde' / 'gradebook.db'}",
                              a, student)
                        _install(course, roots[student, a], student, a)
                    except Exception as exc:  # noqa: BLE001 - costs this submission only
                        good, tail = False, f"merge failed: {type(exc).__name__}: {exc}"
                if not good:
                    failed.append((student, a))
                    bar.write(tail)
                bar.write(f"{'ok  ' if good else 'FAIL'} autograde {a} {student} ({secs:.1f} s)")
                bar.update(1)
                bar.set_postfix(failed=len(failed))
        bar.close()
    if failed:
        print(f"FAIL {len(failed)} submission(s): "
              + ", ".join(f"{a}/{s}" for s, a in sorted(failed)), file=sys.stderr)
    return ok and not failed


def _worker(spec: dict) -> int:
    from .course import Course, course_config
    course = Course(course_config(spec["root"], **spec["overrides"]))
    return 0 if course._run(f"autograde {spec['assignment']} {spec['student']}",
                            course.api.autograde, spec["assignment"], spec["student"]) else 1


if __name__ == "__main__":
    sys.exit(_worker(json.loads(sys.argv[1])))
