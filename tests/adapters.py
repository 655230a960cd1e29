"""The one surface through which tests reach student code: an exercise's answer cell.

``cell(ex_id, source)`` finds the answer cell whose nbgrader ``grade_id`` is ``ex_id``:
``source="solution"`` in ``solutions/``, ``"release"`` the stub in ``notebooks/``, any
other name the variant ``tests/variants/<ex_id>__<name>.py`` (a full replacement of the
cell's source). ``run(ex_id, source)`` executes that one cell in a fresh namespace and
returns the namespace; ``target(ex_id, source)`` returns the object the exercise's check
takes (``labsupport.exercises.registry.EXERCISES[ex_id].target`` names it).
"""
from __future__ import annotations

import ast
import asyncio
import inspect
import os
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from labsupport.exercises.registry import check_of, exercise

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ROOT / "tests" / "variants"
os.environ.setdefault("MPLBACKEND", "Agg")  # answer cells may plot; no display in tests


EXERCISE_ID = re.compile(r'"grade_id":\s*"((?:ex|kc)\d\d_\d+)"')


def exercise_ids() -> list[str]:
    """Every exercise id used as a grade_id in solutions/."""
    ids = set()
    for nb in ROOT.glob("solutions/*/*.ipynb"):
        ids.update(EXERCISE_ID.findall(nb.read_text()))
    return sorted(ids)


@dataclass(frozen=True)
class Cell:
    ex_id: str
    source_name: str      # "solution", "release" or a variant's bug name
    cell_type: str        # "code" or "markdown"
    source: str
    notebook: Path        # where the cell (or the variant) came from
    nbgrader: dict


def _find(ex_id: str, folder: Path) -> tuple[Path, dict]:
    for path in sorted(folder.glob("*/*.ipynb")):
        for c in nbformat.read(path, as_version=4).cells:
            if c.metadata.get("nbgrader", {}).get("grade_id") == ex_id:
                return path, c
    raise LookupError(f"no cell with grade_id {ex_id!r} in {folder.relative_to(ROOT)}/"
                      + (" — run `make release`?" if folder.name == "notebooks" else ""))


def variants(ex_id: str, passing: bool = False) -> list[str]:
    """Names of the variant files for ``ex_id``: buggy ones (``<ex_id>__<bug>.py``), or with
    ``passing`` other correct answers (``passing/<ex_id>__<name>.py``), named
    ``passing/<name>``."""
    folder, prefix = (VARIANTS / "passing", "passing/") if passing else (VARIANTS, "")
    return sorted(prefix + p.stem.split("__", 1)[1] for p in folder.glob(f"{ex_id}__*.py"))


def cell(ex_id: str, source: str = "solution") -> Cell:
    """The answer cell of ``ex_id`` from the solution, the release or a variant."""
    path, c = _find(ex_id, ROOT / ("notebooks" if source == "release" else "solutions"))
    text = c.source
    if source not in ("solution", "release"):
        sub, _, name = source.rpartition("/")
        variant = VARIANTS / sub / f"{ex_id}__{name}.py"
        if not variant.exists():
            raise LookupError(f"no variant {variant.relative_to(ROOT)}")
        path, text = variant, variant.read_text()
    return Cell(ex_id, source, c.cell_type, text, path, dict(c.metadata.get("nbgrader", {})))


def _python(source: str) -> str:
    """Cell source as plain Python: IPython magics and shell lines (%, !) dropped."""
    return "\n".join("" if re.match(r"\s*[%!]", line) else line for line in source.splitlines())


def run(ex_id: str, source: str = "solution") -> dict:
    """Execute the answer cell alone in a fresh namespace and return the namespace.

    Top-level ``await`` (allowed in notebooks) runs on a fresh event loop.
    """
    c = cell(ex_id, source)
    if c.cell_type != "code":
        raise TypeError(f"{ex_id} is a {c.cell_type} cell (graded by hand), not code")
    ns: dict = {"__name__": f"__{ex_id}__"}
    code = compile(_python(c.source), f"<{ex_id}:{source}>", "exec",
                   flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(code, ns)  # noqa: S307 - the code under test is the lab's own cell
    if inspect.iscoroutine(result):
        asyncio.run(result)
    return ns


def check_function(ex_id: str):
    """The check of ``ex_id`` (``labsupport.exercises.registry`` names it)."""
    return check_of(ex_id)


def target_name(ex_id: str) -> str:
    """The name the answer cell defines for the check (the registry's ``target``)."""
    target = exercise(ex_id).target
    if target is None:
        raise LookupError(f"{ex_id} is graded by hand: the registry names no target for it "
                          "(see docs/conventions.md, 'Check modules')")
    return target


def target(ex_id: str, source: str = "solution"):
    """Run the answer cell and return the object the check function takes."""
    ns = run(ex_id, source)
    name = target_name(ex_id)
    if name not in ns:
        raise NameError(f"the {source} cell of {ex_id} does not define {name!r}")
    return ns[name]
