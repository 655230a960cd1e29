"""``labgrader pack`` (``make student-pack``): what a trainer hands students who work on
their own laptop or in Colab, as one versioned archive, ``build/<NAME>-<version>.tar.gz``:

- ``notebooks/``: the release (stubs, no solution, no hidden test);
- ``data/``: the lab's data files;
- ``wheels/labsupport-<version>-py3-none-any.whl``: the students' package only, built from
  a clean copy of ``labsupport/`` and the root ``pyproject.toml`` (never the grader, the
  key, ``solutions/`` or ``tests/``);
- ``requirements.txt``: the lab's pins, the same file;
- ``setup.sh``: one command on Linux or macOS (``python3 -m venv`` + pip, then JupyterLab on
  notebook 00); ``README.md`` (the set-up, Colab's first cell); ``labpack.json`` (the
  version and each file's SHA-256; its folder is where ``labsupport.paths`` finds ``data/``).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from labsupport import __version__
from labsupport.paths import PACK_MARKER, REPO

NAME = "dynamic-batching-lab"
WHEEL_SOURCES = ("pyproject.toml", "README.md", "labsupport")  # what the wheel is built from

SETUP = """#!/bin/sh
# One command: a venv beside this file with the lab's pinned stack and its package, then
# JupyterLab on notebook 00 (127.0.0.1; the token is in the printed URL). Linux or macOS.
set -e
cd "$(dirname "$0")"
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q -r requirements.txt wheels/labsupport-*.whl
.venv/bin/labsupport doctor --quiet || true
[ "${1:-}" = "--no-lab" ] && exit 0
exec .venv/bin/jupyter lab --ip 127.0.0.1 --ServerApp.root_dir="$PWD" \\
  --LabApp.news_url=None notebooks/00_welcome/00_welcome.ipynb
"""

README = """# Dynamic Batching Lab {version}: the student pack

Batching for model serving, hands on: notebooks `00_welcome` … `08_knowledge_check` with
the lab's Python package. CPU is enough; a GPU is used when present.

## On a laptop (Linux, macOS)

Needs Python 3.11 with `venv` and network access to PyPI the first time (about 2 GB).

    sh setup.sh            # creates .venv here, installs, opens JupyterLab on notebook 00

Later, `sh setup.sh` again just opens the lab (the venv is kept). `sh setup.sh --no-lab`
only installs.

## In Colab (or any hosted Jupyter)

Run this as the first cell of each notebook, with the archive's URL (or its path on your
Drive) in `PACK`:

    PACK = "https://…/{archive}"
    !test -d {folder} || (curl -sL "$PACK" -o {archive} || cp "$PACK" {archive}) && tar xzf {archive}
    !pip install -q {folder}/wheels/{wheel}
    import os; os.environ["LAB_DATA"] = os.path.abspath("{folder}/data")

Colab has its own versions of torch and friends; the pinned set in `requirements.txt` is
what the lab is tested with (`pip install -r {folder}/requirements.txt` to match it).

## What is in here

`notebooks/` (yours to edit and hand in), `data/`, `wheels/` (the lab's package),
`requirements.txt` (the pinned stack), `labpack.json` (the version and a checksum of each
file). Hand in the notebooks your trainer asks for, as they are.
"""


def build_wheel(dest: Path) -> Path:
    """The students' wheel (``labsupport`` only), built in a clean copy of its sources so
    no stale build output can slip in."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="labpack-src-") as tmp:
        src = Path(tmp)
        for name in WHEEL_SOURCES:
            if (REPO / name).is_dir():
                shutil.copytree(REPO / name, src / name,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy(REPO / name, src / name)
        cmd = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(src / "dist"), str(src)]
        done = subprocess.run(cmd[:5] + ["--no-build-isolation"] + cmd[5:], capture_output=True, text=True)
        if done.returncode != 0:  # an old setuptools without bdist_wheel: build isolated
            done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"building the students' wheel failed:\n{done.stderr[-2000:]}")
        (wheel,) = (src / "dist").glob("labsupport-*.whl")
        return Path(shutil.copy(wheel, dest / wheel.name))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _add(tar: tarfile.TarFile, path: Path, name: str) -> None:
    """One file or folder into the archive, in a fixed order, with fixed owners and times."""
    info = tar.gettarinfo(str(path), name)
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mtime = 0
    if info.isfile():
        with path.open("rb") as f:
            tar.addfile(info, f)
    else:
        tar.addfile(info)
        for child in sorted(path.iterdir()):
            if child.name not in ("__pycache__", ".ipynb_checkpoints"):
                _add(tar, child, f"{name}/{child.name}")


def pack(out: Path | None = None, notebooks: Path | None = None) -> Path:
    """Build the pack from the release in ``notebooks`` (default: the repo's ``notebooks/``)
    into ``out`` (default ``build/``); returns the archive's path."""
    out = Path(out or REPO / "build")
    notebooks = Path(notebooks or REPO / "notebooks")
    folder = f"{NAME}-{__version__}"
    with tempfile.TemporaryDirectory(prefix="labpack-") as tmp:
        root = Path(tmp) / folder
        shutil.copytree(notebooks, root / "notebooks", ignore=shutil.ignore_patterns(
            ".ipynb_checkpoints", "__pycache__"))
        shutil.copytree(REPO / "data", root / "data")
        wheel = build_wheel(root / "wheels")
        shutil.copy(REPO / "requirements.txt", root / "requirements.txt")
        (root / "setup.sh").write_text(SETUP)
        (root / "setup.sh").chmod(0o755)
        archive = f"{folder}.tar.gz"
        (root / "README.md").write_text(README.format(version=__version__, archive=archive,
                                                      folder=folder, wheel=wheel.name))
        files = sorted(p for p in root.rglob("*") if p.is_file())
        manifest = {"name": NAME, "version": __version__, "wheel": f"wheels/{wheel.name}",
                    "files": {str(p.relative_to(root)): _sha256(p) for p in files}}
        (root / PACK_MARKER).write_text(json.dumps(manifest, indent=1) + "\n")
        out.mkdir(parents=True, exist_ok=True)
        with tarfile.open(out / archive, "w:gz") as tar:
            _add(tar, root, folder)
    return out / archive


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="labgrader pack", description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, help="folder for the archive (default build/)")
    args = p.parse_args(argv)
    archive = pack(args.out)
    print(f"{archive} ({archive.stat().st_size / 1e6:.1f} MB)")
    return 0
