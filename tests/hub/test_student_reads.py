"""On a machine set up for a class (``hub/course.py setup --protect-repo``), a real student
Unix user reads every file they can — this clone (the package, the release, the docs, its
git history), the course root with the exchange, the other users' homes — and none of it
reveals the knowledge check's key or the hidden tests.

Virtual environments in the clone are read only where the lab installed itself (third-party
packages hold nothing of this course; nbgrader's own tests even carry its generic markers).
Key material looked for: the key file's explanations and its JSON, the solutions' answer
lines, hidden-test blocks. Hidden *cases* of the code exercises are in no file at all (each
grading run draws them from its secret seed). Needs root, ``useradd``/``runuser`` and the
system Python (``/usr/bin/python3``, which a student can run); not the hub itself.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import nbformat
import pytest

from hubkit import COURSE_PY, REPO, protected_paths

STUDENT, TRAINER = "lkstudent1", "lktrainer"
PYTHON = Path("/usr/bin/python3")


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "needs root: it creates Unix users"
    for tool in ("useradd", "userdel", "runuser", "git"):
        if not shutil.which(tool):
            return f"no `{tool}` on this system"
    if not PYTHON.exists():
        return f"no {PYTHON} for the student to run"
    return None


pytestmark = [pytest.mark.slow, pytest.mark.skipif(_missing() is not None,
                                                   reason=f"student reads: {_missing()}")]

SCAN = r"""
import json, os, subprocess, sys
roots, markers, repo = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
found, read = [], 0
def ours(name):
    return "labsupport" in name

for root in roots:
    for folder, dirs, files in os.walk(root):
        if "pyvenv.cfg" in files:
            # a virtual environment: third-party packages hold nothing of this course; read
            # only what an install of the lab put there (an editable hook or a copied package)
            sites = [os.path.join(folder, d, p, "site-packages") for d in ("lib", "lib64")
                     if os.path.isdir(os.path.join(folder, d)) for p in os.listdir(os.path.join(folder, d))]
            dirs[:] = []
            files = [os.path.join(site, n) for site in sites if os.path.isdir(site)
                     for n in os.listdir(site) if ours(n)]
            for entry in list(files):
                if os.path.isdir(entry):
                    files.remove(entry)
                    files += [os.path.join(f, n) for f, _, ns in os.walk(entry) for n in ns]
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            try:
                with open(path, "rb") as f:
                    text = f.read(20_000_000).decode("utf-8", "ignore")
            except OSError:
                continue
            read += 1
            hit = next((m for m in markers if m in text), None)
            if hit:
                found.append([path, hit[:60]])
git = subprocess.run(["git", "-C", repo, "show", "HEAD:keys/kc08.json"],
                     capture_output=True, text=True)
if git.returncode == 0:
    found.append(["git show HEAD:keys/kc08.json", git.stdout[:60]])
print(json.dumps({"found": found, "read": read}))
"""


def _markers() -> list[str]:
    key = json.loads((REPO / "keys" / "kc08.json").read_text())
    out = [e["explain"][:40] for e in key.values()] + ['"concepts": [']
    sol = nbformat.read(REPO / "solutions" / "08_knowledge_check" / "08_knowledge_check.ipynb", 4)
    for c in sol.cells:
        gid = c.metadata.get("nbgrader", {}).get("grade_id", "")
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"):
            out += [line.strip() for line in c.source.splitlines() if line.startswith(f"{gid} =")]
    return out + _hidden_lines()


def _hidden_lines() -> list[str]:
    """The lab's own hidden-test lines (nbgrader's generic BEGIN marker also sits in nbgrader's
    own tests and docs in site-packages, which reveal nothing about this course)."""
    lines = []
    for path in sorted((REPO / "solutions").glob("*/*.ipynb")):
        for c in nbformat.read(path, 4).cells:
            inside = False
            for line in c.source.splitlines():
                if line.strip() == "### BEGIN HIDDEN TESTS":
                    inside = True
                elif line.strip() == "### END HIDDEN TESTS":
                    inside = False
                elif inside and line.strip():
                    lines.append(line.strip())
    assert lines, "the solutions hold no hidden-test lines: the scan would look for nothing"
    return lines


@pytest.fixture(scope="module")
def course():
    root = Path(tempfile.mkdtemp(prefix="labhub-reads-", dir="/tmp"))
    os.chmod(root, 0o755)
    env = {**os.environ, "LABHUB_ROOT": str(root), "LABHUB_USERS": f"{TRAINER},{STUDENT}"}
    modes = {p: p.stat().st_mode & 0o777 for p in protected_paths()}
    subprocess.run([str(PYTHON), str(COURSE_PY), "setup", "--protect-repo"], env=env, check=True)
    try:
        yield root
    finally:
        for path, mode in modes.items():
            os.chmod(path, mode)
        subprocess.run([str(PYTHON), str(COURSE_PY), "teardown"], env=env, check=False)


def _as_student(*cmd: str) -> subprocess.CompletedProcess:
    env = ["HOME=/home/" + STUDENT, "PATH=/usr/bin:/bin", "LANG=C.UTF-8"]
    return subprocess.run(["runuser", "-u", STUDENT, "--", "env", "-i", *env, *cmd],
                          cwd="/", capture_output=True, text=True, timeout=600)


def test_no_readable_file_reveals_a_key(course):
    control = _as_student(str(PYTHON), "-c", "import sys; print(open(sys.argv[1]).read()[:20])",
                          str(REPO / "notebooks" / "08_knowledge_check" / "08_knowledge_check.ipynb"))
    if control.returncode != 0:
        pytest.skip(f"this clone is not readable by other users at all: {control.stderr[-200:]}")
    roots = [str(REPO), str(course), "/home"]
    out = _as_student(str(PYTHON), "-c", SCAN, json.dumps(roots), json.dumps(_markers()), str(REPO))
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout)
    assert got["read"] > 100, f"the student read only {got['read']} files: the scan saw nothing"
    assert not got["found"], f"readable by a student: {got['found'][:5]}"
    # what they do get: the package's form checks and the release, not a key
    for path in ("labsupport/exercises/kc08.py", "notebooks/08_knowledge_check/08_knowledge_check.ipynb"):
        assert _as_student(str(PYTHON), "-c", "open(__import__('sys').argv[1]).read()",
                           str(REPO / path)).returncode == 0, path
    denied = _as_student(str(PYTHON), "-c", "open(__import__('sys').argv[1]).read()",
                         str(REPO / "keys" / "kc08.json"))
    assert denied.returncode != 0 and "Permission denied" in denied.stderr
