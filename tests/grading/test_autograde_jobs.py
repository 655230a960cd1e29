"""`labgrader autograde --jobs N` on the knowledge check, with real nbgrader.

- Parallel grading gives the gradebook sequential grading gives (an honest, a wrong and a
  forging submission).
(The hostile submissions of ``tests/grading/hostile/`` are graded in ``test_hostile.py``.)
The assignment is found in ``solutions/`` (the one whose items are ``kc…``), not named.
"""
import copy
import shutil
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from labgrader import Course, course_config, main, parallel

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).parent / "hostile"
pytestmark = pytest.mark.slow


def _nbg(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def _kc_assignment() -> Path:
    for nb in sorted(ROOT.glob("solutions/*/*.ipynb")):
        if any(str(_nbg(c).get("grade_id", "")).startswith("kc") for c in nbformat.read(nb, 4).cells):
            return nb
    pytest.skip("no knowledge-check notebook in solutions/")


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """A released course holding only the knowledge check; returns (root, assignment, nb)."""
    src = _kc_assignment()
    root = tmp_path_factory.mktemp("released")
    shutil.copytree(src.parent, root / "solutions" / src.parent.name)
    assert Course(course_config(root)).release()
    return root, src.parent.name, src.stem


def _course(released, tmp_path, name) -> Course:
    root = tmp_path / name
    shutil.copytree(released[0], root)
    return Course(course_config(root, **{"Execute.timeout": 5}))


def _submit(course, assignment, notebook, student, first=None, wrong=False):
    """The solutions (first=None), or ``first`` in the first answer cell and well-formed
    wrong answers (the letter ``z``… as a string) everywhere else."""
    rel = nbformat.read(course.root / "notebooks" / assignment / f"{notebook}.ipynb", 4)
    sol = {_nbg(c)["grade_id"]: c.source
           for c in nbformat.read(course.root / "solutions" / assignment / f"{notebook}.ipynb", 4).cells
           if _nbg(c).get("solution")}
    nb, seen = copy.deepcopy(rel), False
    for c in nb.cells:
        gid = _nbg(c).get("grade_id")
        if not (_nbg(c).get("solution") and c.cell_type == "code"):
            continue
        if first is not None and not seen:
            c.source, seen = first, True
        elif first is not None or wrong:
            c.source = f'{gid} = "z"'
        else:
            c.source = sol[gid]
    out = course._dir("submitted") / student / assignment / f"{notebook}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)


def _rows(course, assignment, notebook) -> dict:
    with Gradebook(course.coursedir.db_url) as gb:
        out = {}
        for sub in gb.assignment_submissions(assignment):
            nb = gb.find_submission_notebook(notebook, assignment, sub.student.id)
            out[sub.student.id] = (
                nb.flagged,
                {g.name: (g.auto_score, g.score, g.needs_manual_grade) for g in nb.grades},
                {c.name: c.auto_comment for c in nb.comments})
        return out


def test_parallel_matches_sequential(released, tmp_path):
    _, a, nb = released
    seq, par = _course(released, tmp_path, "seq"), _course(released, tmp_path, "par")
    for course in (seq, par):
        _submit(course, a, nb, "honest")
        _submit(course, a, nb, "wrong", wrong=True)
        _submit(course, a, nb, "forger", first=(HOSTILE / "rebind.py").read_text())
    assert seq.autograde()
    assert parallel.autograde(par, jobs=3, progress=False)
    got, want = _rows(par, a, nb), _rows(seq, a, nb)
    assert set(got) == {"honest", "wrong", "forger"}
    assert got == want
    honest = got["honest"][1]
    assert all(auto == top for name, (auto, top, _) in honest.items() if name.endswith("_test")), honest
    assert all(auto == 0 for name, (auto, _, _) in got["wrong"][1].items() if auto is not None)
    # autograded notebooks are in place for feedback and the formgrader
    assert {p.parent.parent.name for p in par._dir("autograded").glob(f"*/{a}/*.ipynb")} == set(got)


def test_cli_rejects_bad_jobs(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["autograde", "--jobs", "0"])
    assert exit_.value.code == 2 and "--jobs" in capsys.readouterr().err
