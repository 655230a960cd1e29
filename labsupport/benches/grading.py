"""``labsupport bench grading``: how long autograding one student, and a class, takes.

In a temporary copy of the course (every assignment found in ``solutions/``, released
first; not timed) each student submits the solutions. Measured, with the lab's own
pipeline (autograde mode, trusted pass, audit):

- ``full_pack``: one student, every assignment, one after another (seconds each);
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


def run(students: int = 2, jobs: int = 2, class_size: int = 30,
        names: list[str] | None = None, include_ungraded: bool = False) -> dict:
    """Measure; returns the JSON-able result."""
    from ..grading import parallel
    if students < 1 or jobs < 1 or class_size < 1:
        raise ValueError(f"students, jobs and class_size must be >= 1 "
                         f"(got {students}, {jobs}, {class_size})")
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
            per[a] = {"s": round(time.perf_counter() - t0, 2), "ok": ok}
        graded = [a for a in per if course.max_score(a) > 0]
        full = sum(per[a]["s"] for a in graded)
        shutil.rmtree(course._dir("submitted") / "s000")
        for i in range(1, students + 1):
            _submit(course, f"s{i:03d}")
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            ok = parallel.autograde(course, students=[f"s{i:03d}" for i in range(1, students + 1)],
                                    jobs=jobs, progress=False)
        wall = time.perf_counter() - t0
    scaled = wall * class_size / students
    return {
        "bench": "grading", "cpus": os.cpu_count(),
        "full_pack": {"per_assignment": per, "skipped_no_points": skipped,
                      "graded_s": round(full, 1), "goal_s": GOAL_FULL_PACK_S,
                      "meets_goal": full <= GOAL_FULL_PACK_S},
        "class": {"students": students, "jobs": jobs, "assignments": len(graded),
                  "submissions": students * len(graded), "wall_s": round(wall, 1), "ok": ok,
                  "s_per_student": round(wall / students, 1),
                  f"scaled_to_{class_size}_students_s": round(scaled, 1),
                  "goal_s": GOAL_CLASS_S, "meets_goal": scaled <= GOAL_CLASS_S},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="labsupport bench grading", description=__doc__.split("\n")[0])
    p.add_argument("--students", type=int, default=2, help="students graded for the class figure")
    p.add_argument("--jobs", type=int, default=2, help="parallel workers (default 2)")
    p.add_argument("--class-size", type=int, default=30, help="students to scale to (default 30)")
    p.add_argument("--assignment", action="append", dest="names", help="only these (repeat)")
    p.add_argument("--include-ungraded", action="store_true",
                   help="also time assignments without points (autograde skips them)")
    args = p.parse_args(argv)
    try:
        result = run(args.students, args.jobs, args.class_size, args.names, args.include_ungraded)
    except ValueError as err:
        p.error(str(err))
    print(json.dumps(result, indent=2))
    return 0
