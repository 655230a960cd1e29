"""A real nbgrader round trip in a temporary copy of the course.

release → collect (a folder, and an LMS zip) → autograde → feedback → export, with:
the solutions (full marks), the untouched release (0 on every autograded cell), the
lesson's naive batcher in the ex02 cells (loses exactly its exercises' points), and
broken submissions (infinite loop, syntax error, deleted test cell, edited test cell)
that are graded without aborting while their other cells still score.
Only the quick notebooks (00, 01, 02, 08) that carry points are graded, to stay within a
few minutes; the broken submissions use the cheapest one (the knowledge check).
"""
import copy
import csv
import html
import re
import shutil
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

import adapters
from labgrader import Course, course_config

ROOT = Path(__file__).resolve().parents[2]
QUICK = ("00", "01", "02", "08")
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)
pytestmark = pytest.mark.slow


def _graded(path: Path) -> bool:
    """Whether a notebook has points to win (a notebook without any has nothing to grade)."""
    return any(_nbg(c).get("points") for c in nbformat.read(path, 4).cells)


def _nbg(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def _answer(source: str) -> str:
    """What a student would have typed: the solution cell without the markers."""
    return "\n".join(line for line in source.splitlines() if line.strip() not in (BEGIN, END))


def _inside(source: str) -> list[str]:
    """The lines inside solution regions (a markdown answer without markers: all of it)."""
    if BEGIN not in source:
        return source.splitlines()
    keep, out = False, []
    for line in source.splitlines():
        if line.strip() in (BEGIN, END):
            keep = line.strip() == BEGIN
        elif keep:
            out.append(line)
    return out


def _solution_cells(src_nb) -> dict[str, str]:
    return {_nbg(c)["grade_id"]: _answer(c.source) for c in src_nb.cells if _nbg(c).get("solution")}


def _submission(release_nb, answers: dict[str, str], drop=(), edit=None):
    """The release with some answer cells filled in, test cells dropped or edited."""
    nb = copy.deepcopy(release_nb)
    cells = []
    for c in nb.cells:
        gid = _nbg(c).get("grade_id")
        if gid in drop:
            continue
        if gid in answers:
            c.source = answers[gid]
        if edit and gid == edit[0]:
            c.source = edit[1]
        cells.append(c)
    nb.cells = cells
    return nb


def _code_exercises(src_nb) -> list[str]:
    """Autograded exercises: code answer cells that have a `<id>_test` cell."""
    ids = [_nbg(c).get("grade_id") for c in src_nb.cells]
    return [i for i in ids if f"{i}_test" in ids and any(
        _nbg(c).get("grade_id") == i and c.cell_type == "code" for c in src_nb.cells)]


def _grades(gb, assignment, notebook, student) -> dict[str, tuple[float, float, bool]]:
    """grade cell -> (score, max, autograded) for one submitted notebook."""
    nb = gb.find_submission_notebook(notebook, assignment, student)
    return {g.name: (g.score, g.max_score, g.auto_score is not None) for g in nb.grades}


def _text(path: Path) -> str:
    """Feedback HTML as the reader sees it: tags dropped, entities decoded, spaces folded."""
    raw = re.sub(r"<style.*?</style>|<script.*?</script>", " ", path.read_text(), flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", raw)).split())


def _fold(s: str) -> str:
    return " ".join(s.split())


def _spaced(s: str) -> str:
    """A code line as the highlighted HTML renders it once tags become spaces."""
    return _fold(re.sub(r"(\W)", r" \1 ", s))


def test_round_trip(tmp_path):
    course_root = tmp_path / "course"
    assignments = sorted(p.name for p in (ROOT / "solutions").iterdir()
                         if p.is_dir() and p.name[:2] in QUICK and any(map(_graded, p.glob("*.ipynb"))))
    assert assignments, "no quick assignment to grade"
    for a in assignments:
        shutil.copytree(ROOT / "solutions" / a, course_root / "solutions" / a)
    course = Course(course_config(course_root))
    assert course.release()

    src = {a: {p.stem: nbformat.read(p, 4) for p in sorted((course_root / "solutions" / a).glob("*.ipynb"))}
           for a in assignments}
    rel = {a: {n: nbformat.read(course_root / "notebooks" / a / f"{n}.ipynb", 4) for n in src[a]}
           for a in assignments}
    incoming = tmp_path / "incoming"

    def submit(student, a, name, nb):
        out = incoming / student / a / f"{name}.ipynb"
        out.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, out)

    # --- who submits what ---------------------------------------------------------
    for a in assignments:
        for name, nb in src[a].items():
            submit("full", a, name, _submission(rel[a][name], _solution_cells(nb)))
            submit("blank", a, name, rel[a][name])
    lesson = {}  # (assignment, notebook) -> exercise ids answered with the lesson's batcher
    for a in assignments:
        for name, nb in src[a].items():
            ids = [i for i in _code_exercises(nb) if "lesson" in adapters.variants(i)]
            if ids:
                answers = _solution_cells(nb)
                answers.update({i: adapters.cell(i, "lesson").source for i in ids})
                submit("lesson", a, name, _submission(rel[a][name], answers))
                lesson[a, name] = ids
    # broken submissions on the cheapest notebook with two or more autograded exercises
    bad_a, bad_nb = next((a, n) for a in reversed(assignments) for n, nb in src[a].items()
                         if len(_code_exercises(nb)) >= 2)
    first = _code_exercises(src[bad_a][bad_nb])[0]
    sol = _solution_cells(src[bad_a][bad_nb])
    rnb = rel[bad_a][bad_nb]
    bad = {
        "loop": _submission(rnb, {**sol, first: "while True:\n    pass"}),
        "syntax": _submission(rnb, {**sol, first: "def broken(:\n    return"}),
        "deleted": _submission(rnb, sol, drop=(f"{first}_test",)),
        # the first answer left blank, its test cell replaced: nbgrader restores the test
        "edited": _submission(rnb, {k: v for k, v in sol.items() if k != first},
                              edit=(f"{first}_test", "pass  # the student's own 'test'")),
    }
    for student, nb in bad.items():
        submit(student, bad_a, bad_nb, nb)
    # wrong answers: every exercise of that notebook that has a buggy variant gets it
    wrong = {i: adapters.cell(i, adapters.variants(i)[0]).source
             for i in _code_exercises(src[bad_a][bad_nb]) if adapters.variants(i)}
    manual = {_nbg(c)["grade_id"] for c in src[bad_a][bad_nb].cells
              if _nbg(c).get("solution") and c.cell_type == "markdown"}
    right = {k: v for k, v in sol.items() if k not in manual}
    submit("wrong", bad_a, bad_nb, _submission(rnb, {**right, **wrong}))

    # --- collect: a folder, and one LMS zip (Canvas-style names) -------------------
    collected = course.collect(incoming)
    assert ("full", bad_a) in collected and ("blank", bad_a) in collected
    lms = tmp_path / "lms.zip"
    with zipfile.ZipFile(lms, "w") as z:
        z.write(incoming / "full" / bad_a / f"{bad_nb}.ipynb", f"zipped_1234_5678_{bad_nb}.ipynb")
    assert course.collect(lms) == [("zipped", bad_a)]

    # --- autograde: every run completes, an infinite loop is cut at the timeout -------
    students = sorted({s for s, _ in course.submissions("submitted")} - {"loop"})
    assert course.autograde(students=students)
    # the loop is cut at Execute.timeout (60 s in the course); 5 s here keeps the test short
    assert Course(course_config(course_root, **{"Execute.timeout": 5})).autograde(bad_a, ["loop"])

    with Gradebook(course.coursedir.db_url) as gb:
        for a in assignments:
            for name in src[a]:
                full = _grades(gb, a, name, "full")
                for cell, (score, top, auto) in full.items():
                    assert not auto or score == top, f"solution loses points in {a}/{cell}"
                blank = _grades(gb, a, name, "blank")
                assert all(score == 0 for score, _, _ in blank.values()), \
                    f"the untouched release scores in {a}/{name}: {blank}"
                if (a, name) in lesson:
                    got = _grades(gb, a, name, "lesson")
                    lost = {f"{i}_test" for i in lesson[a, name]}
                    for cell, (score, top, auto) in got.items():
                        if auto:
                            want = 0 if cell in lost else top
                            assert score == want, f"lesson batcher: {cell} scored {score}, want {want}"
        for student in bad:
            got = _grades(gb, bad_a, bad_nb, student)
            for cell, (score, top, auto) in got.items():
                if cell == f"{first}_test":
                    assert score == 0, f"{student}: {cell} scored {score}"
                elif auto:
                    assert score == top, f"{student}: the intact cell {cell} lost points"
        for cell, (score, top, auto) in _grades(gb, bad_a, bad_nb, "wrong").items():
            want = 0 if cell.removesuffix("_test") in set(wrong) | manual else top
            assert not auto or score == want, f"wrong answers: {cell} scored {score}, want {want}"
        assert _grades(gb, bad_a, bad_nb, "zipped") == _grades(gb, bad_a, bad_nb, "full")
        scores = {(s.student.id, s.assignment.name): s.score
                  for a in assignments for s in gb.assignment_submissions(a)}

    # an answer cell left as released is not run by the judge: its stub fails alone
    for a in assignments:
        for name in src[a]:
            graded = nbformat.read(course._dir("autograded") / "blank" / a / f"{name}.ipynb", 4)
            errors = {_nbg(c)["grade_id"]: [o.get("ename") for o in c.outputs]
                      for c in graded.cells if c.cell_type == "code" and _nbg(c).get("grade")}
            assert errors and all(e == ["NotAnswered"] for e in errors.values()), (a, errors)

    # --- feedback: generated; no hidden test, no answer -------------------------------
    assert course.feedback()
    html_of = {p.relative_to(course_root / "autograde" / "feedback").parts[0:2]: _text(p)
               for p in (course_root / "autograde" / "feedback").rglob("*.html")}
    assert {k for k in html_of} >= {(s, bad_a) for s in ("full", "blank", *bad)}
    hidden_lines = {line.strip() for a in assignments for nb in src[a].values()
                    for c in nb.cells for block in HIDDEN.findall(c.source)
                    for line in block.splitlines() if line.strip()}
    assert hidden_lines, "sanity: the graded notebooks have hidden tests to look for"
    # what students see anyway: the release, and the labsupport code it may print
    released = _spaced(" ".join(c.source for a in assignments for nb in rel[a].values()
                                 for c in nb.cells) + " ".join(
        p.read_text() for p in (ROOT / "labsupport").rglob("*.py") if "exercises" not in p.parts))
    answers = {}  # grade_id -> the solution lines a student could not have seen
    for a in assignments:
        for nb in src[a].values():
            for c in nb.cells:
                if _nbg(c).get("solution"):
                    answers[_nbg(c)["grade_id"]] = {
                        _fold(line) for line in _inside(c.source)
                        if len(line.strip()) >= 12 and _spaced(line) not in released}
    for (student, a), text in html_of.items():
        assert "HIDDEN TESTS" not in text, f"feedback for {student}/{a} shows a hidden test"
        for line in hidden_lines:
            assert _spaced(line) not in _spaced(text), \
                f"feedback for {student}/{a} shows the hidden test line {line!r}"
    for student, ids in (("blank", set(answers)), ("wrong", set(wrong) | manual)):
        text = " ".join(t for (s, _), t in html_of.items() if s == student)
        leaked = [line for i in ids for line in answers[i] if _spaced(line) in _spaced(text)]
        assert not leaked, f"the {student} submission's feedback shows answers: {leaked[:3]}"
    # a wrong answer's feedback says what to fix: the check's own message, once per exercise
    assert html_of["wrong", bad_a].count("AssertionError") >= len(wrong) > 0
    full_text = " ".join(t for (s, _), t in html_of.items() if s == "full")
    assert any(_spaced(line) in _spaced(full_text) for i in answers for line in answers[i]), \
        "sanity: the search should find a student's own answers in their feedback"

    # --- export ------------------------------------------------------------------------
    out = course.export(tmp_path / "grades.csv")
    rows = list(csv.DictReader(out.open()))
    exported = {(r["student_id"], r["assignment"]): float(r["score"]) for r in rows}
    assert set(exported) >= set(scores)
    assert {k: exported[k] for k in scores} == pytest.approx(scores)
    assert exported["blank", bad_a] == 0 < exported["full", bad_a]
