"""``labsupport bench notebooks``: how long each solution notebook takes to run headless.

Executes ``solutions/*/*.ipynb`` (or the ``--notebook`` prefixes given) with nbclient in an
empty folder, one after another, and prints JSON: each notebook's seconds, its slowest code
cells (from nbclient's execution timestamps) and the cells over the per-cell goal; the
students' first hour (notebooks 00, 01, 02 and the knowledge check) summed against its goal;
the load average before and after (on a shared machine every figure moves with it).
Goals: no code cell over 30 s; the first hour under 120 s (2 cores, quiet).
The test suite runs each notebook once and checks that it runs and that its stated
conclusions agree with its own numbers (``tests/notebook/test_solutions.py``), never its times.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from ..paths import REPO
from ..shellwait import SlicedWait
from ..validate import check_float

GOAL_CELL_S = 30.0
GOAL_FIRST_HOUR_S = 120.0
FIRST_HOUR = ("00", "01", "02", "08")  # the students' first hour
HANG_S = 180  # nbclient's per-cell timeout: a hung cell (6x the slowest busy cell), not a slow one


def _stamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def cell_seconds(cell) -> float:
    """Seconds a code cell ran (execute_input to execute_reply), 0 if not recorded."""
    ex = cell.get("metadata", {}).get("execution", {})
    start, end = ex.get("iopub.execute_input"), ex.get("shell.execute_reply")
    return _stamp(end) - _stamp(start) if start and end else 0.0


class Executed(NamedTuple):
    nb: Any               # the notebook with its outputs (nbformat.NotebookNode)
    seconds: float        # wall time of the whole run (s)
    cells: list[float]    # each code cell's time, in order (s)


def notebook_client(nb, workdir: Path | str, timeout_s: float = HANG_S, **kw):
    """An nbclient ``NotebookClient`` for ``nb`` run in ``workdir``, waiting for replies in
    slices (``shellwait``: nbclient issue 312); ``timeout_s`` per cell (a hang guard)."""
    from nbclient import NotebookClient

    class Client(SlicedWait, NotebookClient):
        pass
    return Client(nb, timeout=timeout_s, kernel_name="python3",
                  resources={"metadata": {"path": str(workdir)}}, **kw)


def execute(path: Path, workdir: Path | str) -> Executed:
    """Run the notebook at ``path`` in ``workdir`` (raises on a failing cell)."""
    import nbformat
    nb = nbformat.read(path, as_version=4)
    client = notebook_client(nb, workdir, store_widget_state=True)
    t0 = time.perf_counter()
    client.execute()
    return Executed(nb, time.perf_counter() - t0,
                    [cell_seconds(c) for c in nb.cells if c.cell_type == "code"])


def run(prefixes: list[str] | None = None, goal_cell_s: float = GOAL_CELL_S,
        goal_first_hour_s: float = GOAL_FIRST_HOUR_S, top: int = 3) -> dict:
    """Measure; returns the JSON-able result."""
    check_float("goal_cell_s", goal_cell_s, 0.0, lo_open=True)
    check_float("goal_first_hour_s", goal_first_hour_s, 0.0, lo_open=True)
    paths = sorted((REPO / "solutions").glob("*/*.ipynb"))
    if prefixes:
        paths = [p for p in paths if p.stem.startswith(tuple(prefixes))]
        if not paths:
            raise ValueError(f"--notebook {prefixes} matches no solution notebook")
    load0 = os.getloadavg()
    per = {}
    for path in paths:
        with tempfile.TemporaryDirectory(prefix="bench-notebooks-") as tmp:
            try:
                _, seconds, cells = execute(path, tmp)
                error = None
            except Exception as err:  # noqa: BLE001  (reported, the others still run)
                seconds, cells, error = float("nan"), [], f"{type(err).__name__}: {err}"[:300]
        slow = sorted(range(len(cells)), key=lambda i: -cells[i])
        per[path.stem] = {"s": round(seconds, 1), "error": error,
                          "slowest_cells": [{"code_cell": i + 1, "s": round(cells[i], 1)}
                                            for i in slow[:top]],
                          "cells_over_goal": {i + 1: round(s, 1) for i, s in enumerate(cells)
                                              if s > goal_cell_s}}
    result = {"bench": "notebooks", "cpus": os.cpu_count(), "loadavg_before": load0,
              "notebooks": per, "goal_cell_s": goal_cell_s,
              "meets_cell_goal": all(not v["cells_over_goal"] and not v["error"]
                                     for v in per.values())}
    first = [n for n in per if n[:2] in FIRST_HOUR]
    if len(first) == len(FIRST_HOUR):
        total = sum(per[n]["s"] for n in first)
        result["first_hour"] = {"notebooks": first, "s": round(total, 1),
                                "goal_s": goal_first_hour_s, "meets_goal": total <= goal_first_hour_s}
    result["loadavg_after"] = os.getloadavg()
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="labsupport bench notebooks", description=__doc__.split("\n")[0])
    p.add_argument("--notebook", action="append", dest="prefixes",
                   help="only notebooks whose name starts with this (repeat; e.g. 04)")
    p.add_argument("--goal-cell-s", type=float, default=GOAL_CELL_S, help="per-cell goal (s)")
    p.add_argument("--goal-first-hour-s", type=float, default=GOAL_FIRST_HOUR_S,
                   help="goal for notebooks 00, 01, 02 and 08 together (s)")
    p.add_argument("--top", type=int, default=3, help="slowest cells listed per notebook")
    args = p.parse_args(argv)
    try:
        result = run(args.prefixes, args.goal_cell_s, args.goal_first_hour_s, args.top)
    except ValueError as err:
        p.error(str(err))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
