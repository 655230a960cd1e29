"""The student pack (issue 33, ``labgrader pack``): one archive holding the release, the
data, the students' wheel, the pinned requirements and a one-command set-up, and nothing a
student should not have: no solution, no hidden test, no key entry (the knowledge check's
brute force finds nothing in it), no grader module, nothing from ``solutions/`` or
``keys/``. Slow: the pack installs into a fresh venv in an empty folder and runs there, and
a submission made from it grades like the same answers made from the repo's release."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

from grading.test_key_not_shipped import (brute_force, no_answer_or_explanation,
                                          no_digest_or_seal, shipped_files)
from labgrader import pack as labpack

ROOT = Path(__file__).resolve().parents[2]
BEGIN = re.compile(r"### (BEGIN|END) (SOLUTION|HIDDEN TESTS)")
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)
SOLUTION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)
RUN = ("00", "02", "08")  # the release notebooks the install test runs to the end


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory) -> Path:
    """The pack, built from the repo and unpacked in an empty folder; the wheel's files
    beside it under ``scan/`` (what the student installs, as files)."""
    tmp = tmp_path_factory.mktemp("pack")
    archive = labpack.pack(tmp / "out")
    assert archive.name == f"{labpack.NAME}-{labpack.__version__}.tar.gz"
    with tarfile.open(archive) as tar:
        tar.extractall(tmp / "unpacked", filter="data")
    (root,) = (tmp / "unpacked").iterdir()
    (wheel,) = (root / "wheels").glob("labsupport-*.whl")
    zipfile.ZipFile(wheel).extractall(tmp / "scan")
    return root


def _texts(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(errors="ignore")
            for p in sorted(root.rglob("*")) if p.is_file() and p.suffix != ".whl"}


def test_the_pack_holds_the_release_data_wheel_pins_and_setup(unpacked):
    assert sorted(p.name for p in unpacked.iterdir()) == [
        "README.md", "data", "labpack.json", "notebooks", "requirements.txt", "setup.sh", "wheels"]
    for nb in sorted((ROOT / "notebooks").glob("*/*.ipynb")):
        assert (unpacked / nb.relative_to(ROOT)).read_bytes() == nb.read_bytes(), nb.name
    assert (unpacked / "requirements.txt").read_text() == (ROOT / "requirements.txt").read_text()
    manifest = json.loads((unpacked / "labpack.json").read_text())
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((unpacked / name).read_bytes()).hexdigest() == digest, name
    assert "venv" in (unpacked / "setup.sh").read_text() and os.access(unpacked / "setup.sh", os.X_OK)


def test_nothing_a_student_should_not_have(unpacked):
    scan = unpacked.parent.parent / "scan"
    paths = [str(p.relative_to(unpacked)) for p in unpacked.rglob("*")]
    paths += [str(p.relative_to(scan)) for p in scan.rglob("*")]
    assert not [p for p in paths if re.search(r"labgrader|(^|/)(keys|solutions|tests)(/|$)", p)]
    assert {p.name for p in scan.iterdir() if not p.name.endswith(".dist-info")} == {"labsupport"}
    texts = {**_texts(unpacked), **{f"wheel:{k}": v for k, v in _texts(scan).items()}}
    marked = [name for name, text in texts.items() if BEGIN.search(text)]
    assert not marked, f"solution or hidden-test markers in {marked}"
    everything = "\n".join(texts.values())
    # a solution's line that the lab's own code or the release also holds (a class header,
    # a demo's call) is no leak; every other one is
    released = "\n".join(p.read_text(errors="ignore") for p in shipped_files(ROOT, ("labsupport", "notebooks")))
    for src in sorted((ROOT / "solutions").glob("*/*.ipynb")):
        for cell in nbformat.read(src, 4).cells:
            hidden = [m.group(1) for m in HIDDEN.finditer(cell.source)]
            answer = [m.group(1) for m in SOLUTION.finditer(cell.source)]
            for line in "\n".join(hidden + answer).splitlines():
                line = line.strip()
                if len(line) > 24 and not line.startswith("#") and line not in released:
                    assert json.dumps(line)[1:-1] not in everything and line not in everything, \
                        f"{src.name}: {line!r} ships in the pack"
    no_answer_or_explanation(everything)
    no_digest_or_seal([p for p in shipped_files(unpacked, ("notebooks", "README.md"))], unpacked)


@pytest.mark.slow
def test_the_knowledge_checks_brute_force_finds_nothing_in_the_pack(unpacked, tmp_path):
    course = tmp_path / "course"
    shutil.copytree(unpacked.parent.parent / "scan" / "labsupport", course / "labsupport")
    shutil.copytree(unpacked / "notebooks", course / "notebooks")
    shutil.copy(unpacked / "README.md", course / "README.md")
    brute_force(course, tmp_path)


FULL_INSTALL = os.environ.get("LAB_PACK_FULL_INSTALL") == "1"


def _install(unpacked: Path, env: dict) -> None:
    """The pack's venv in the unpacked folder. With ``LAB_PACK_FULL_INSTALL=1``: exactly
    ``sh setup.sh --no-lab`` (a fresh venv, the pinned stack from the registry or pip's
    cache: minutes, too slow for the suite). Otherwise the same venv without downloading the
    stack again: a fresh venv whose only extra path is this venv's site-packages, added as a
    plain path (its ``.pth`` hooks, the editable ``labsupport`` and ``labgrader`` among
    them, are not run), and the pack's wheel installed into it with ``--no-deps``."""
    if FULL_INSTALL:
        setup = subprocess.run(["sh", "setup.sh", "--no-lab"], cwd=unpacked, env=env,
                               capture_output=True, text=True, timeout=3000)
        assert setup.returncode == 0, setup.stderr[-3000:]
        return
    venv = unpacked / ".venv"
    subprocess.run([env["PYTHON"], "-m", "venv", str(venv)], check=True, env=env, timeout=600)
    (site,) = venv.glob("lib/python*/site-packages")
    (site / "lab-stack.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (wheel,) = (unpacked / "wheels").glob("labsupport-*.whl")
    subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-deps", wheel],
                   check=True, env=env, timeout=600)


@pytest.mark.slow
@pytest.mark.timeout(3600 if FULL_INSTALL else 1500)
def test_the_pack_installs_and_runs_without_the_repo(unpacked, tmp_path):
    """The pack set up in the unpacked folder (``_install``), then ``labsupport doctor`` and
    notebooks 00, 02 and 08 headless to the end there: ``labsupport`` from the pack's wheel,
    the data from the pack, the grader not importable."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LAB_", "PYTHON", "VIRTUAL_ENV", "JUPYTER"))}
    env.update(PYTHON=sys.base_prefix + "/bin/python3",
               PATH=os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                    if not p.startswith(str(Path(sys.executable).parent))))
    t0 = time.monotonic()
    _install(unpacked, env)
    install_s = time.monotonic() - t0
    py = unpacked / ".venv" / "bin" / "python"
    where = subprocess.run([py, "-c", "import labsupport, labsupport.paths as p; "
                            "print(labsupport.__file__); print(p.DATA)"],
                           cwd=unpacked / "notebooks", env=env, capture_output=True, text=True)
    lib, data = where.stdout.split()
    assert Path(lib).is_relative_to(unpacked / ".venv") and Path(data) == unpacked / "data"
    assert subprocess.run([py, "-c", "import labgrader"], cwd=unpacked, env=env,
                          capture_output=True).returncode  # the grader is not there
    doctor = subprocess.run([unpacked / ".venv" / "bin" / "labsupport", "doctor"], cwd=unpacked,
                            env=env, capture_output=True, text=True, timeout=300)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    env["HOME"] = str(tmp_path)  # the notebooks' own state (kc08's commits) stays here
    runner = ("import sys, pathlib\nfrom labsupport.benches.notebooks import execute\n"
              "for path in sys.argv[1:]:\n"
              "    run = execute(pathlib.Path(path), pathlib.Path(path).parent)\n"
              "    print(pathlib.Path(path).name, round(run.seconds, 1), flush=True)\n")
    nbs = [str(p) for p in sorted((unpacked / "notebooks").glob("*/*.ipynb")) if p.name[:2] in RUN]
    t1 = time.monotonic()
    done = subprocess.run([py, "-c", runner, *nbs], cwd=unpacked, env=env, capture_output=True,
                          text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(done.stdout.split("\n")) > len(RUN)
    print(f"\npack: {'setup.sh' if FULL_INSTALL else 'fast'} install {install_s:.0f} s; "
          f"notebooks {time.monotonic() - t1:.0f} s:\n{done.stdout}")


def _fill(release_nb, answers: dict[str, str]):
    nb = nbformat.from_dict(json.loads(json.dumps(release_nb)))
    for c in nb.cells:
        gid = c.metadata.get("nbgrader", {}).get("grade_id")
        if gid in answers:
            c.source = answers[gid]
    return nb


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_a_submission_from_the_pack_grades_like_one_from_the_repo(unpacked, tmp_path):
    """The same answers (every other knowledge-check item solved, the rest left as the
    stub), typed into the pack's notebook and into the repo's release, autograded together."""
    from nbgrader.api import Gradebook

    from labgrader import Course, course_config
    a = nb = "08_knowledge_check"
    root = tmp_path / "course"
    shutil.copytree(ROOT / "solutions" / a, root / "solutions" / a)
    course = Course(course_config(root))
    assert course.release([a])
    src = nbformat.read(ROOT / "solutions" / a / f"{nb}.ipynb", 4)
    solved = [c for c in src.cells if c.metadata.get("nbgrader", {}).get("solution")
              and c.cell_type == "code"]
    answers = {c.metadata.nbgrader.grade_id: "\n".join(
        line for line in c.source.splitlines() if "### " not in line) for c in solved[::2]}
    for student, release in (("pack", unpacked / "notebooks"), ("repo", ROOT / "notebooks")):
        out = tmp_path / "incoming" / student / a / f"{nb}.ipynb"
        out.parent.mkdir(parents=True)
        nbformat.write(_fill(nbformat.read(release / a / f"{nb}.ipynb", 4), answers), out)
    assert sorted(course.collect(tmp_path / "incoming")) == [("pack", a), ("repo", a)]
    assert course.autograde(a, ["pack", "repo"])
    with Gradebook(f"sqlite:///{root / 'autograde' / 'gradebook.db'}") as gb:
        grades = {s: {g.name: (g.score, g.max_score) for g in
                      gb.find_submission_notebook(nb, a, s).grades} for s in ("pack", "repo")}
    assert grades["pack"] == grades["repo"]
    score = sum(s or 0 for s, _ in grades["pack"].values())
    assert 0 < score < sum(m for _, m in grades["pack"].values())  # right ones count, stubs not
