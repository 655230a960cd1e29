"""Before any student is graded: the instructors' solutions, graded in the same sandbox.

``check(course, assignments)`` submits each assignment's source notebooks (the solutions)
as one pseudo-student of a private copy of the course — same configuration, same sandbox,
same run's hidden cases — and grades them with the lab's pipeline (nbgrader's API, one
assignment after another). ``parallel.autograde`` grades the same copy (``mirrored``) as jobs
of its own on its job slots, alone (no student's code runs beside them), and starts the
class's jobs only once ``conclude`` passed.
Every auto-graded item must get full marks (a review flag alone, e.g. a slow kernel cell
killed at the timeout, does not stop grading); otherwise ``PreflightFailed`` names
each item and what went wrong, before a single student's grade is written. A grading
environment that cannot run the lab (the package not importable in the box, a venv outside
the folders the box shows, a kernel that does not start) fails here, instead of recording 0
for every student. A pass is remembered per course, assignment and sandbox mode for the
rest of the process.
"""
from __future__ import annotations

import contextlib
import copy
import io
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

STUDENT = "preflight-solutions"
_PASSED: set[tuple[str, str, str]] = set()


class PreflightFailed(RuntimeError):
    """The instructors' solutions did not get full marks: grading must not start."""


@dataclass
class Mirror:
    """A private copy of a course (``mirrored``) where ``STUDENT`` submitted the solutions
    of ``todo``: the assignments not yet passed in this process."""
    course: object
    todo: list[str]
    key: tuple[str, str]  # (the real course's root, the sandbox mode): what a pass is remembered by


@contextlib.contextmanager
def mirrored(course, assignments: list[str]) -> Iterator[Mirror]:
    """The solutions of ``assignments`` submitted to a private copy of ``course`` (same
    configuration, same gradebook, removed afterwards), ready to grade; ``todo`` is empty
    when every one of them passed already."""
    from .sandbox import Sandbox
    key = (str(course.root), Sandbox(config=course.cfg).resolved_mode())
    todo = [a for a in sorted(set(assignments)) if (key[0], a, key[1]) not in _PASSED
            and (course._dir("source") / a).is_dir()]
    with tempfile.TemporaryDirectory(prefix="labsupport-preflight-") as tmp:
        cfg = copy.deepcopy(course.cfg)  # a copy all the way down: the course's stays as is
        cfg.CourseDirectory.root = tmp
        cfg.CourseDirectory.db_url = f"sqlite:///{Path(tmp) / 'gradebook.db'}"
        mirror = type(course)(cfg)
        shutil.copy(course.coursedir.db_url.removeprefix("sqlite:///"),
                    mirror.coursedir.db_url.removeprefix("sqlite:///"))
        for a in todo:
            for step in ("source", "release"):
                shutil.copytree(course._dir(step) / a, mirror._dir(step) / a)
            shutil.copytree(course._dir("source") / a, mirror._dir("submitted") / STUDENT / a)
        yield Mirror(mirror, todo, key)


def check(course, assignments: list[str]) -> None:
    """Grade the solutions of ``assignments`` in ``course``'s sandbox, one after another in
    this process; ``PreflightFailed`` unless every auto-graded item gets full marks.
    (``parallel.autograde`` grades them as jobs of its own instead, before the class.)"""
    with mirrored(course, assignments) as m:
        failed = []
        for a in m.todo:
            log = io.StringIO()
            with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
                result = m.course.api.autograde(a, STUDENT)
            if not result.get("success"):
                failed.append(f"{a}: grading the solutions failed:\n"
                              + tail(log.getvalue() + result.get("log", "") + result.get("error", "")))
        conclude(m, problems(m.course.coursedir.db_url, m.course._dir("autograded"), m.todo)
                 + failed)


def conclude(m: Mirror, found: list[str]) -> None:
    """``PreflightFailed`` naming what was ``found`` (each item of the solutions without full
    marks, each run that did not finish, and why), if anything; else each assignment of
    ``m`` is remembered as passed for the rest of the process."""
    if found:
        raise PreflightFailed(
            "preflight: the instructors' solutions do not get full marks in this grading "
            "environment, so no student is graded (no grade was written):\n  - "
            + "\n  - ".join(found))
    _PASSED.update((m.key[0], a, m.key[1]) for a in m.todo)


def tail(text: str, lines: int = 6) -> str:
    """The lines of a failed run's log that say why (errors), then its last two lines."""
    found = [ln for ln in text.splitlines() if ln.strip() and "see the the above" not in ln
             and any(w in ln for w in ("Error", "rror:", "No such", "cannot", "not found"))]
    keep = list(dict.fromkeys(found[-lines:] + [ln for ln in text.splitlines() if ln.strip()][-2:]))
    return "\n".join("      " + ln.strip()[:300] for ln in keep)


def problems(db_url: str, autograded: Path, assignments: list[str]) -> list[str]:
    """Each auto-graded item of the solutions without full marks, and why (the gradebook at
    ``db_url``, the autograded notebooks under ``autograded``)."""
    from nbgrader.api import Gradebook, MissingEntry
    out = []
    with Gradebook(db_url) as gb:
        for a in assignments:
            try:
                sub = gb.find_submission(a, STUDENT)
            except MissingEntry:
                out.append(f"{a}: the solutions were not graded (see the log above)")
                continue
            for nb in sub.notebooks:
                why = _messages(autograded / STUDENT / a / f"{nb.name}.ipynb")
                comments = {c.name: c.auto_comment or "" for c in nb.comments}
                for g in sorted(nb.grades, key=lambda g: g.name):
                    if g.cell.cell_type != "code":
                        continue  # a written answer: a trainer grades it
                    if g.auto_score is None or g.auto_score < g.max_score:  # a flag alone: no stop
                        reason = (why.get(g.name) or comments.get(g.name.removesuffix("_test"))
                                  or "no verdict (the notebook was not graded)")
                        out.append(f"{a}/{nb.name} {g.name.removesuffix('_test')}: "
                                   f"{g.auto_score or 0:g} of {g.max_score:g} points: {reason[:400]}")
    return out


def _messages(path: Path) -> dict[str, str]:
    """test id -> the verdict's message in an autograded notebook (its error output)."""
    import nbformat
    try:
        nb = nbformat.read(path, 4)
    except (OSError, ValueError):
        return {}
    out = {}
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        for o in cell.get("outputs", []) if gid else []:
            if o.get("output_type") == "error":
                out[gid] = f"{o.get('ename')}: {o.get('evalue')}"
    return out
