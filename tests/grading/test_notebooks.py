"""Every solution notebook runs headless (nbclient) without error.

One test per notebook, so a broken one names itself. How long they take is a figure, not
a test (a busy machine is slow, not wrong): ``labsupport bench notebooks`` prints each
notebook's seconds and slowest cells against the goals (no cell over 30 s; the first hour
under 120 s). Times seen here also go to the terminal (``-rP``/``-s``) and to
``test-artifacts/notebook_times.json``.
"""
import json
from pathlib import Path

import pytest

from labsupport.benches.notebooks import execute

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(ROOT.glob("solutions/*/*.ipynb"))
pytestmark = pytest.mark.slow


def _record(name: str, seconds: float, cells: list[float]) -> None:
    out = ROOT / "test-artifacts" / "notebook_times.json"
    out.parent.mkdir(exist_ok=True)
    data = json.loads(out.read_text()) if out.exists() else {}
    data[name] = {"seconds": round(seconds, 2), "slowest_cell_s": round(max(cells, default=0), 2)}
    out.write_text(json.dumps(data, indent=1, sort_keys=True))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_solution_notebook_executes(path, tmp_path):
    # run in an empty folder: a notebook must not depend on its cwd (nbgrader moves it)
    seconds, cells = execute(path, tmp_path)
    _record(path.stem, seconds, cells)
    print(f"{path.stem}: {seconds:.1f} s, slowest cell {max(cells, default=0):.1f} s")
    assert cells, f"{path.stem}: no code cell ran"
