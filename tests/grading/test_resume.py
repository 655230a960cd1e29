"""`labgrader autograde --jobs N` can be interrupted and resumed: a rerun grades only what
is missing, ``--force`` regrades everything, each student ends with one line.

Real nbgrader and the real sandbox, on the smallest graded assignment (``01_naive_queue``).
The interrupt is a real ``KeyboardInterrupt`` raised in the grading loop (what Ctrl-C does),
just as the second submission's grades are about to be written.
"""
import shutil
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook, MissingEntry

from labgrader import Course, course_config, parallel

ROOT = Path(__file__).resolve().parents[2]
A = "01_naive_queue"
pytestmark = pytest.mark.slow


@pytest.fixture
def course(tmp_path):
    shutil.copytree(ROOT / "solutions" / A, tmp_path / "solutions" / A)
    course = Course(course_config(tmp_path, **{"Execute.timeout": 30}))
    assert course.release([A])
    for student in ("ann", "bob"):
        dest = course._dir("submitted") / student / A
        dest.mkdir(parents=True)
        nb = nbformat.read(course._dir("source") / A / f"{A}.ipynb", 4)
        nbformat.write(nb, dest / f"{A}.ipynb")
    return course


def _graded(course) -> set[str]:
    with Gradebook(course.coursedir.db_url) as gb:
        out = set()
        for s in ("ann", "bob"):
            try:
                if gb.find_submission(A, s).score == course.max_score(A):
                    out.add(s)
            except MissingEntry:
                pass
    return out


def test_an_interrupted_run_resumes_with_what_is_missing(course, monkeypatch, capsys):
    real_merge, merged = parallel.merge, []

    def merge_then_interrupt(main_db, worker_db, assignment, student):
        if merged:  # the second submission: Ctrl-C before its grades are written
            raise KeyboardInterrupt
        real_merge(main_db, worker_db, assignment, student)
        merged.append(student)
    monkeypatch.setattr(parallel, "merge", merge_then_interrupt)
    assert not parallel.autograde(course, jobs=2, progress=False)
    err = capsys.readouterr().err
    assert "interrupted: 1 of 2 submission(s) graded" in err, err
    first = merged[0]
    assert _graded(course) == {first}  # the gradebook holds the first whole, not the second
    assert [course.is_graded(s, A) for s in ("ann", "bob")].count(True) == 1

    monkeypatch.setattr(parallel, "merge", real_merge)
    report: list[dict] = []
    assert parallel.autograde(course, jobs=2, progress=False, report=report)
    out = capsys.readouterr()
    other = ({"ann", "bob"} - {first}).pop()
    assert [r["student"] for r in report] == [other]  # only the missing one
    assert "skip 1 submission(s) already graded" in out.out
    assert f"done {other}: 4/4 points" in out.out + out.err, out  # the student's one line
    assert _graded(course) == {"ann", "bob"}
    assert set(report[0]["phases"]) == {"startup", "import", "cells", "judge", "waited"}

    report.clear()  # nothing left: a rerun grades nothing and succeeds
    assert parallel.autograde(course, jobs=2, progress=False, report=report) and report == []
    assert parallel.autograde(course, jobs=2, progress=False, report=report, force=True)
    assert sorted(r["student"] for r in report) == ["ann", "bob"]  # --force: everything again
