"""Notebooks 05 and 06 through a real nbgrader round trip in a temp course: the solutions score
full marks, the untouched release scores 0, and a submission with a known bug in every
exercise loses exactly those exercises' points (the other cells still run)."""
import copy
import shutil
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

import adapters
from labgrader import Course, course_config

ROOT = Path(__file__).resolve().parents[2]
BUGS = {"05_decode_basics": {"ex05_4": "no_gqa", "ex05_5": "tpot_over_n",
                             "ex05_6": "ignores_kv"},
        "06_continuous_decoder": {"ex06_1": "never_frees", "ex06_2": "admits_past_budget",
                                  "ex06_4": "oldest_victim", "ex06_5": "no_chunking",
                                  "ex06_6": "ignores_tpot", "ex06_7": "span",
                                  "ex06_8": "shared_write", "ex06_9": "one_causal_row",
                                  "ex06_10": "unchained"}}
pytestmark = pytest.mark.slow


def _answers(src) -> dict[str, str]:
    marks = ("### BEGIN SOLUTION", "### END SOLUTION")
    return {c.metadata["nbgrader"]["grade_id"]: "\n".join(
        line for line in c.source.splitlines() if line.strip() not in marks)
        for c in src.cells if c.metadata.get("nbgrader", {}).get("solution")}


def _fill(release, answers):
    nb = copy.deepcopy(release)
    for c in nb.cells:
        gid = c.metadata.get("nbgrader", {}).get("grade_id")
        if gid in answers:
            c.source = answers[gid]
    return nb


@pytest.mark.parametrize("A", list(BUGS))
def test_round_trip(tmp_path, A):
    bugs = BUGS[A]
    root = tmp_path / "course"
    shutil.copytree(ROOT / "solutions" / A, root / "solutions" / A)
    course = Course(course_config(root))
    assert course.release([A])
    src = nbformat.read(root / "solutions" / A / f"{A}.ipynb", 4)
    rel = nbformat.read(root / "notebooks" / A / f"{A}.ipynb", 4)
    right = _answers(src)
    wrong = {**right, **{ex: adapters.cell(ex, bug).source for ex, bug in bugs.items()}}
    incoming = tmp_path / "incoming"
    for student, nb in {"full": _fill(rel, right), "blank": rel,
                        "buggy": _fill(rel, wrong)}.items():
        out = incoming / student / A / f"{A}.ipynb"
        out.parent.mkdir(parents=True)
        nbformat.write(nb, out)
    course.collect(incoming)
    assert course.autograde(A, ["full", "blank", "buggy"])
    with Gradebook(course.coursedir.db_url) as gb:
        for student in ("full", "blank", "buggy"):
            nb = gb.find_submission_notebook(A, A, student)
            got = {g.name: (g.score, g.max_score) for g in nb.grades}
            assert set(got) == {f"{ex}_test" for ex in bugs}
            for cell, (score, top) in got.items():
                want = top if student == "full" else 0
                assert score == want, f"{student}: {cell} scored {score}, want {want}"
