"""Submissions that attack the grader (``tests/grading/hostile/sandbox/``), graded by
``labgrader autograde`` on a copy of the project, as a trainer would.

Namespaces mode (root; skipped without it), ``--jobs 2``, one run: every attacker earns
nothing; the bystanders graded after them (an honest and a wrong student) score exactly
as they should and their submissions are untouched; the package is byte-identical after
grading; no process of the run is left; the gradebook is the same seconds later (a
detached writer would show); the attacks that hit a limit carry their status in the CLI
output and the export's ``review`` column. Plain mode (no namespaces): a submission that
rewrites the package stops grading, and what it left running is killed. The autograded
notebook of a submission that displays HTML, SVG and JavaScript keeps only their inert forms.
"""
import copy
import csv
import hashlib
import os
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from labgrader.sandbox import JUDGE_UIDS, Sandbox, namespaces_available

from .test_autograde_jobs import _kc_assignment, _nbg

ROOT = Path(__file__).resolve().parents[2]
ATTACKS = Path(__file__).parent / "hostile" / "sandbox"
REDTEAM = Path(__file__).parent / "hostile" / "redteam"
RED = ("key_scan",)  # a copy of the key outside the course (another clone of the lab)
pytestmark = pytest.mark.slow
UID_BASE = Sandbox().uid_base + 80  # within this test worker's uids, apart from its graders'
LIMITS = f"""
c.Sandbox.uid_base = {UID_BASE}
c.Execute.timeout = 5
c.Sandbox.notebook_s = 40
c.Sandbox.memory_mib = 768
c.Sandbox.processes = 128  # a fork bomb meets it long before the 5 s cell timeout, even on a loaded machine
c.Sandbox.output_mib = 8
c.Sandbox.scratch_mib = 192
c.Sandbox.file_mib = 64
"""
STATUS = {"memory_hog": ("memory limit",), "hang": ("timed out",), "output_flood": ("output limit",),
          # each child of the kernel (torch loaded) holds its own page tables: on a loaded
          # machine the box's memory cap can stop the bomb before its process cap does
          "fork_bomb": ("process limit", "memory limit")}
WRITABLE_MIB = 192 + 64  # the box's /tmp (scratch_mib) and /dev/shm


def _project(dest: Path, source_nb: Path) -> Path:
    """A copy of the project holding only the knowledge check and its key (``keys/``,
    which the boxes must not see), with the test's limits."""
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "labsupport", dest / "labsupport", ignore=skip)
    shutil.copytree(ROOT / "labgrader", dest / "labgrader", ignore=skip)
    shutil.copytree(ROOT / "data", dest / "data")
    shutil.copytree(ROOT / "keys", dest / "keys")
    shutil.copytree(source_nb.parent, dest / "solutions" / source_nb.parent.name)
    (dest / "autograde").mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", dest)
    cfg = (ROOT / "autograde" / "nbgrader_config.py").read_text()
    (dest / "autograde" / "nbgrader_config.py").write_text(cfg + LIMITS)
    return dest


def _submit(project: Path, assignment: str, notebook: str, student: str, first: str | None,
            honest: bool = False) -> Path:
    """The solutions (honest), or ``first`` in the first answer cell and wrong answers
    (the letter ``z``) everywhere else. Built from the source: no release needed."""
    src = nbformat.read(project / "solutions" / assignment / f"{notebook}.ipynb", 4)
    nb, seen = copy.deepcopy(src), False
    for c in nb.cells:
        if not (_nbg(c).get("solution") and c.cell_type == "code") or honest:
            continue
        if first is not None and not seen:
            c.source, seen = first, True
        else:
            c.source = f'{_nbg(c)["grade_id"]} = "z"'
    out = project / "autograde" / "submitted" / student / assignment / f"{notebook}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    return out


def _tree_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(folder)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def _grade(project: Path, token: str, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(project), REDTEAM_TOKEN=token)
    return subprocess.run([sys.executable, "-m", "labgrader", "autograde", *args],
                          cwd=project, env=env, capture_output=True, text=True, timeout=timeout)


def _rows(project: Path, assignment: str, notebook: str) -> dict:
    with Gradebook(f"sqlite:///{project / 'autograde' / 'gradebook.db'}") as gb:
        out = {}
        for sub in gb.assignment_submissions(assignment):
            nb = gb.find_submission_notebook(notebook, assignment, sub.student.id)
            out[sub.student.id] = (nb.flagged, {g.name: (g.auto_score, g.manual_score, g.score, g.max_score)
                                                 for g in nb.grades if g.name.endswith("_test")})
        return out


def _processes_with(token: str) -> list[int]:
    found = []
    for p in Path("/proc").iterdir():
        try:
            if p.name.isdigit() and int(p.name) != os.getpid() and (
                    token.encode() in (p / "environ").read_bytes()
                    or (p / "cmdline").read_bytes().startswith(b"sleep\x003599")):
                found.append(int(p.name))
        except OSError:
            pass
    return found


def _grading_uids_alive(base: int = UID_BASE, jobs: int = 2) -> list[int]:
    pids = []
    for p in Path("/proc").iterdir():
        try:
            uid = int((p / "status").read_text().split("\nUid:")[1].split()[0])
            if p.name.isdigit() and (base <= uid < base + jobs
                                     or base + JUDGE_UIDS <= uid < base + JUDGE_UIDS + jobs):
                pids.append(int(p.name))
        except (OSError, IndexError, ValueError):
            pass
    return pids


@pytest.mark.skipif(not namespaces_available()[0], reason=f"namespaces: {namespaces_available()[1]}")
def test_attacks_earn_nothing_and_spare_the_class(tmp_path):
    src = _kc_assignment()
    a, nb = src.parent.name, src.stem
    project = _project(tmp_path / "project", src)
    files = {p.stem: p for p in [*ATTACKS.glob("*.py"), *(REDTEAM / f"{n}.py" for n in RED)]}
    attacks = sorted(files)
    for name in attacks:
        _submit(project, a, nb, name, files[name].read_text())
    honest = _submit(project, a, nb, "zz_honest", None, honest=True)
    wrong = _submit(project, a, nb, "zz_wrong", None)
    before = {"package": _tree_hash(project / "labsupport"), "honest": honest.read_bytes(),
              "wrong": wrong.read_bytes()}
    token = secrets.token_hex(8)
    run = _grade(project, token, "--jobs", "2")
    assert "sandbox: namespaces" in run.stdout, run.stdout + run.stderr
    rows = _rows(project, a, nb)
    time.sleep(3)  # a detached writer would have struck by now
    assert _rows(project, a, nb) == rows, "the gradebook changed after grading"
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert _tree_hash(project / "labsupport") == before["package"], "the package changed"
    assert honest.read_bytes() == before["honest"] and wrong.read_bytes() == before["wrong"]
    assert set(rows) == {*attacks, "zz_honest", "zz_wrong"}
    for name in attacks + ["zz_wrong"]:
        assert all(score == 0 for *_, score, _ in rows[name][1].values()), (name, rows[name])
    flagged, grades = rows["zz_honest"]
    assert not flagged and all(score == top for *_, score, top in grades.values()), grades
    assert not rows["zz_wrong"][0]
    assert not _processes_with(token) and not _grading_uids_alive(), "a process outlived grading"
    for name, status in STATUS.items():  # the CLI names the limit under that student
        block = run.stdout.split(f"autograde {a} {name} ")[1].split("autograde ")[0]
        assert any(s in block for s in status), (name, block)
    xss = nbformat.read(project / "autograde" / "autograded" / "xss" / a / f"{nb}.ipynb", 4)
    kinds = {k for c in xss.cells for o in c.get("outputs", []) for k in o.get("data", {})}
    assert kinds and not kinds & {"text/html", "image/svg+xml", "application/javascript"}, kinds
    graded = nbformat.read(project / "autograde" / "autograded" / "disk_hog" / a / f"{nb}.ipynb", 4)
    wrote = [o.text for c in graded.cells for o in c.get("outputs", []) if "wrote" in o.get("text", "")]
    assert wrote and int(wrote[0].split()[1]) <= WRITABLE_MIB, wrote  # the disk is capped
    env = dict(os.environ, PYTHONPATH=str(project))
    subprocess.run([sys.executable, "-m", "labgrader", "export"], cwd=project,
                   env=env, check=True, capture_output=True)
    with (project / "autograde" / "grades.csv").open() as f:
        review = {r["student_id"]: r["review"] for r in csv.DictReader(f)}
    for name, status in STATUS.items():
        assert any(s in review[name] for s in status), (name, review[name])
    assert review["zz_honest"] == review["zz_wrong"] == ""


@pytest.mark.parametrize("jobs, first, second", [("1", "leave_procs", "rewrite_package"),
                                                  ("2", "rewrite_package", "leave_procs")])
def test_plain_mode_stops_when_the_package_changes(jobs, first, second, tmp_path):
    """One run each: with ``--jobs 1`` the leaver is graded whole before the rewriter (its
    processes must die with its notebook); with ``--jobs 2`` the rewriter goes first so that
    the wrong student, next in line, is never started."""
    src = _kc_assignment()
    a, nb = src.parent.name, src.stem
    project = _project(tmp_path / "project", src)
    with (project / "autograde" / "nbgrader_config.py").open("a") as f:
        # no cgroup without root: the memory limit becomes each process's address space,
        # and the kernel's imports nearly fill 768 MiB (it died and was replayed again and
        # again, a minute of suite time); memory is not what this test is about
        f.write("c.Sandbox.memory_mib = 4096\n")
    for student, attack in (("a_" + first, first), ("b_" + second, second)):
        _submit(project, a, nb, student, (ATTACKS / f"{attack}.py").read_text())
    _submit(project, a, nb, "c_wrong", None)
    token = secrets.token_hex(8)
    run = _grade(project, token, "--sandbox", "plain", "--jobs", jobs)
    assert run.returncode != 0
    assert "WARNING: grading without root" in run.stderr
    assert "grading stopped" in run.stderr and "_rewrite_package" in run.stderr, run.stderr[-2000:]
    graded = _rows(project, a, nb)
    assert "c_wrong" not in graded, "graded on after the seal broke"
    if jobs == "1":
        assert "a_leave_procs" in graded, graded
    assert not _processes_with(token), "a process outlived grading"
