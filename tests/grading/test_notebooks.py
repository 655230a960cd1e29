"""Every solution notebook runs headless (nbclient) without error; no cell takes 30 s.

One test per notebook, so a slow or broken one names itself. Times go to the terminal
(``-rP``/``-s``) and to ``test-artifacts/notebook_times.json``.
"""
import json
import time
from datetime import datetime
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(ROOT.glob("solutions/*/*.ipynb"))
CELL_LIMIT_S = 30.0
FIRST_HOUR = ("00", "01", "02", "08")  # the students' first hour: together under 2 minutes
FIRST_HOUR_LIMIT_S = 120.0
TIMES: dict[str, float] = {}
pytestmark = pytest.mark.slow


def _cell_seconds(cell) -> float:
    ex = cell.metadata.get("execution", {})
    start, end = ex.get("iopub.execute_input"), ex.get("shell.execute_reply")
    if not (start and end):
        return 0.0
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def _record(name: str, seconds: float, cells: list[float]) -> None:
    TIMES[name] = seconds
    out = ROOT / "test-artifacts" / "notebook_times.json"
    out.parent.mkdir(exist_ok=True)
    data = json.loads(out.read_text()) if out.exists() else {}
    data[name] = {"seconds": round(seconds, 2), "slowest_cell_s": round(max(cells, default=0), 2)}
    out.write_text(json.dumps(data, indent=1, sort_keys=True))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_solution_notebook_executes(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    # run in an empty folder: a notebook must not depend on its cwd (nbgrader moves it)
    client = NotebookClient(nb, timeout=int(2 * CELL_LIMIT_S), kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}},
                            store_widget_state=True)
    t0 = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - t0
    cells = [_cell_seconds(c) for c in nb.cells if c.cell_type == "code"]
    _record(path.stem, seconds, cells)
    print(f"{path.stem}: {seconds:.1f} s, slowest cell {max(cells, default=0):.1f} s")
    slow = {i: round(s, 1) for i, s in enumerate(cells) if s > CELL_LIMIT_S}
    assert not slow, f"{path.stem}: code cells over {CELL_LIMIT_S:.0f} s: {slow}"


def test_first_hour_runs_in_two_minutes():
    """Notebooks 00–02 and the knowledge check together, as timed above in this session."""
    names = [p.stem for p in NOTEBOOKS if p.stem[:2] in FIRST_HOUR]
    if not names or any(n not in TIMES for n in names):
        pytest.skip("run together with test_solution_notebook_executes")
    total = sum(TIMES[n] for n in names)
    print(f"first hour ({', '.join(names)}): {total:.1f} s")
    assert total < FIRST_HOUR_LIMIT_S, f"{names} take {total:.0f} s together (limit 120 s)"
