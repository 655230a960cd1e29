"""The points of every graded item, read from the nbgrader source (``solutions/``), and the
Markdown table of them that ``docs/architecture.md`` carries (a test keeps it in step):

    python -m labsupport.exercises.points            # print the table
    python -m labsupport.exercises.points --write    # refresh it in docs/architecture.md
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from ..paths import REPO as ROOT

BEGIN, END = "<!-- points:begin -->", "<!-- points:end -->"
DOC = ROOT / "docs" / "architecture.md"


def graded_items(solutions: Path = ROOT / "solutions") -> list[tuple[str, str, float, str]]:
    """``(notebook, item id, points, how)`` per graded cell; ``how`` is ``auto`` (a test
    cell) or ``manual`` (a written answer)."""
    out = []
    for nb_path in sorted(solutions.glob("*/*.ipynb")):
        for cell in json.loads(nb_path.read_text())["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("grade") and meta.get("points") is not None:
                how = "auto" if cell["cell_type"] == "code" else "manual"
                item = re.sub(r"_test$", "", meta["grade_id"])
                out.append((nb_path.stem, item, float(meta["points"]), how))
    return out


def table() -> str:
    """One row per notebook: its items with their points, and the notebook's total."""
    rows = ["| notebook | items (points) | auto | manual | total |", "|---|---|---|---|---|"]
    by_nb: dict[str, list] = {}
    for nb, item, pts, how in graded_items():
        by_nb.setdefault(nb, []).append((item, pts, how))
    for nb, items in by_nb.items():
        auto = sum(p for _, p, h in items if h == "auto")
        manual = sum(p for _, p, h in items if h == "manual")
        listed = ", ".join(f"{i} ({p:g}{'*' if h == 'manual' else ''})" for i, p, h in items)
        rows.append(f"| {nb} | {listed} | {auto:g} | {manual:g} | {auto + manual:g} |")
    return "\n".join(rows) + "\n\n\\* graded by hand (a written answer)."


def in_doc(text: str) -> str:
    """The table currently between the markers of ``text``."""
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--write" in argv:
        head, rest = DOC.read_text().split(BEGIN, 1)
        DOC.write_text(f"{head}{BEGIN}\n{table()}\n{END}{rest.split(END, 1)[1]}")
    else:
        print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
