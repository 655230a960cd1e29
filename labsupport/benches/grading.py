"""``labsupport bench grading``: how long autograding one student, and a class, takes.

In a temporary copy of the course (every assignment found in ``solutions/``, released
first; not timed) each student submits the solutions. Measured, with the lab's own
pipeline (autograde mode, trusted pass, audit):

- ``full_pack``: one student, every assignment, one after another (seconds each, and the
  ``--top`` slowest cells of each, from nbclient's execution timestamps);
- ``class``: ``--students`` students × every assignment with ``--jobs`` workers, and that
  wall time scaled to ``--class-size`` students (grading is a queue of equal jobs).

Prints JSON. Goals: full pack <= 60 s; 30 students <= 15 min on 2 cores.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import tempfile
import time
from datetime import datetime
from pathlib import Path

GOAL_FULL_PACK_S = 60.0
GOAL_CLASS_S = 15 * 60.0


def _course(tmp: Path, names: list[str] | None):
    from ..grading import ROOT, Course, course_config
    src = sorted(p for p in (ROOT / "solutions").iterdir() if p.is_dir() and any(p.glob("*.ipynb")))
    src = [p for p in src if not names or p.name in names]
    for p in src:
        shutil.copytree(p, tmp / "solutions" / p.name)
    course = Course(course_config(tmp))
    with contextlib.redirect_stdout(io.StringIO()):
        if not course.release():
            raise RuntimeError("bench grading: release failed")
    return course


def _submit(course, student: str) -> None:
    for a in course.assignments():
        dest = course._dir("submitted") / student / a
        dest.mkdir(parents=True, exist_ok=True)
        for nb in (course._dir("source") / a).glob("*.ipynb"):
            shutil.copy(nb, dest / nb.name)


def _stamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _score(course, assignment: str, student: str) -> float:
    from nbgrader.api import Gradebook
    with Gradebook(course.coursedir.db_url) as gb:
        return float(gb.find_submission(assignment, student).score)


def cell_times(folder: Path) -> list[dict]:
    """Every code cell of the autograded notebooks in ``folder``, slowest first (seconds,
    from the ``execution`` metadata nbclient records: execute_input to execute_reply)."""
    import nbformat
    out = []
    for path in sorted(folder.glob("*.ipynb")):
        for i, cell in enumerate(nbformat.read(path, 4).cells):
            ex = cell.get("metadata", {}).get("execution", {})
            if cell.cell_type != "code" or "shell.execute_reply" not in ex:
                continue
            start = ex.get("iopub.execute_input") or ex.get("shell.execute_reply.started")
            secs = _stamp(ex["shell.execute_reply"]) - _stamp(start)
            gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            out.append({"cell": i + 1, "s": round(secs, 2), "id": gid,
                        "head": cell.source.strip().splitlines()[0][:60] if cell.source.strip() else ""})
    return sorted(out, key=lambda c: -c["s"])


def run(students: int = 2, jobs: int = 2, class_size: int = 30,
        names: list[str] | None = None, include_ungraded: bool = False,
        top: int = 3, full_only: bool = False) -> dict:
    """Measure; returns the JSON-able result (``full_only``: skip the class figure)."""
    from ..grading import parallel
    if students < 1 or jobs < 1 or class_size < 1 or top < 0:
        raise ValueError(f"students, jobs and class_size must be >= 1 and top >= 0 "
                         f"(got {students}, {jobs}, {class_size}, {top})")
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        course = _course(Path(tmp), names)
        _submit(course, "s000")
        per, skipped = {}, []
        for a in course.assignments():
            if course.max_score(a) == 0 and not include_ungraded:
                skipped.append(a)
                continue
            t0 = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                ok = bool(course.api.autograde(a, "s000").get("success"))
            cells = cell_times(course._dir("autograded") / "s000" / a)
            per[a] = {"s": round(time.perf_counter() - t0, 2), "ok": ok,
                      "score": _score(course, a, "s000"), "max_score": course.max_score(a),
                      "cells_s": round(sum(c["s"] for c in cells), 2), "top_cells": cells[:top]}
        graded = [a for a in per if course.max_score(a) > 0]
        full = sum(per[a]["s"] for a in graded)
        result = {
            "bench": "grading", "cpus": os.cpu_count(), "loadavg_before": load0,
            "full_pack": {"per_assignment": per, "skipped_no_points": skipped,
                          "graded_s": round(full, 1), "goal_s": GOAL_FULL_PACK_S,
                          "meets_goal": full <= GOAL_FULL_PACK_S}}
        if full_only:
            return result
        shutil.rmtree(course._dir("submitted") / "s000")
        who = [f"s{i:03d}" for i in range(1, students + 1)]
        for s in who:
            _submit(course, s)
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            ok = parallel.autograde(course, students=who, jobs=jobs, progress=False)
        wall = time.perf_counter() - t0
    scaled = wall * class_size / students
    result["class"] = {
        "students": students, "jobs": jobs, "assignments": len(graded),
        "submissions": students * len(graded), "wall_s": round(wall, 1), "ok": ok,
        "s_per_student": round(wall / students, 1),
        f"scaled_to_{class_size}_students_s": round(scaled, 1),
        "goal_s": GOAL_CLASS_S, "meets_goal": scaled <= GOAL_CLASS_S}
    result["loadavg_after"] = os.getloadavg()
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="labsupport bench grading", description=__doc__.split("\n")[0])
    p.add_argument("--students", type=int, default=2, help="students graded for the class figure")
    p.add_argument("--jobs", type=int, default=2, help="parallel workers (default 2)")
    p.add_argument("--class-size", type=int, default=30, help="students to scale to (default 30)")
    p.add_argument("--assignment", action="append", dest="names", help="only these (repeat)")
    p.add_argument("--include-ungraded", action="store_true",
                   help="also time assignments without points (autograde skips them)")
    p.add_argument("--top", type=int, default=3, help="slowest cells listed per assignment")
    p.add_argument("--full-only", action="store_true", help="only the one-student full pack")
    args = p.parse_args(argv)
    try:
        result = run(args.students, args.jobs, args.class_size, args.names, args.include_ungraded,
                     args.top, args.full_only)
    except ValueError as err:
        p.error(str(err))
    print(json.dumps(result, indent=2))
    return 0
