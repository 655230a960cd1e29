"""What runs short in autograde mode (``LAB_AUTOGRADE=1``, ``labsupport.autograde_mode()``)."""
import asyncio

import numpy as np
import pytest

from labsupport.sim import scenarios
from labsupport.traffic import Request


def _replay(n_requests: int, gap_ms: float) -> np.ndarray:
    reqs = [Request(id=k, arrival=k * gap_ms) for k in range(n_requests)]

    async def submit(item):
        return item

    arrival, finish = asyncio.run(scenarios.open_loop(submit, reqs, lambda r: r.id))
    assert not np.isnan(finish).any()
    return arrival


def test_open_loop_replays_only_the_first_span_when_autograding(monkeypatch):
    monkeypatch.setenv("LAB_AUTOGRADE", "1")
    span, least = scenarios.AUTOGRADE_SPAN_MS, scenarios.AUTOGRADE_MIN_REQUESTS
    assert len(_replay(40, span / 10)) == 11          # arrivals 0 … span inclusive
    assert len(_replay(8, span)) == least             # sparse traffic: still a few requests


def test_open_loop_replays_everything_otherwise(monkeypatch):
    monkeypatch.setenv("LAB_AUTOGRADE", "0")
    assert len(_replay(14, scenarios.AUTOGRADE_SPAN_MS / 10)) == 14  # past the span


def _grades(course, assignment: str) -> dict:
    from nbgrader.api import Gradebook
    with Gradebook(course.coursedir.db_url) as gb:
        sub = gb.find_submission(assignment, "s1")
        return {g.name: (g.auto_score, g.needs_manual_grade) for nb in sub.notebooks for g in nb.grades}


@pytest.mark.slow
def test_leaving_out_demo_cells_changes_no_grade(tmp_path):
    """The first graded notebook with demo cells, solved: the same grades with and without
    ``AutogradeExecute.skip_demos``, and the skipped cells carry the note."""
    import shutil

    import nbformat

    from labgrader import ROOT, Course, course_config
    from labgrader.demos import NOTE, demo_cells
    src = next(p for p in sorted(ROOT.glob("solutions/*/*.ipynb"))
               if demo_cells(nbformat.read(p, 4)) and any(
                   c.metadata.get("nbgrader", {}).get("points") for c in nbformat.read(p, 4).cells))
    got = {}
    for skip in (True, False):
        root = tmp_path / str(skip)
        shutil.copytree(src.parent, root / "solutions" / src.parent.name)
        course = Course(course_config(root, **{"AutogradeExecute.skip_demos": skip}))
        assert course.release()
        dest = course._dir("submitted") / "s1" / src.parent.name
        dest.mkdir(parents=True)
        shutil.copy(course._dir("source") / src.parent.name / src.name, dest / src.name)
        assert course.autograde()
        got[skip] = _grades(course, src.parent.name)
        out = nbformat.read(course._dir("autograded") / "s1" / src.parent.name / src.name, 4)
        notes = [c for c in out.cells if c.cell_type == "code"
                 and any(o.get("text") == NOTE for o in c.get("outputs", []))]
        assert bool(notes) == skip
    assert got[True] == got[False] and any(score for score, _ in got[True].values()), got
