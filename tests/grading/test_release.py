"""notebooks/ is nbgrader's release of solutions/, byte for byte, and no notebook has outputs."""
import shutil
from pathlib import Path

import nbformat
import pytest

from labgrader import Course, course_config

ROOT = Path(__file__).resolve().parents[2]
ALL_NOTEBOOKS = sorted(ROOT.glob("solutions/*/*.ipynb")) + sorted(ROOT.glob("notebooks/*/*.ipynb"))


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".ipynb_checkpoints" not in p.parts}


@pytest.mark.slow
def test_notebooks_are_a_fresh_release_of_solutions(tmp_path):
    shutil.copytree(ROOT / "solutions", tmp_path / "solutions")
    assert Course(course_config(tmp_path)).release(), "nbgrader generate_assignment failed"
    fresh, committed = _files(tmp_path / "notebooks"), _files(ROOT / "notebooks")
    assert sorted(fresh) == sorted(committed), "notebooks/ is stale: run `make release`"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"notebooks/ differs from a fresh release in {stale}: run `make release`"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_outputs_committed(path):
    nb = nbformat.read(path, as_version=4)
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
             and (c.get("outputs") or c.get("execution_count") is not None)]
    assert not dirty, f"{path.relative_to(ROOT)}: cells {dirty} have outputs; clear them"
