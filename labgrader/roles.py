"""Which cell of a submission is what, from the gradebook — never from the submission's say.

nbgrader keeps the source notebook's graded cells in the gradebook at release: the answer
cells (code solution cells), the test cells (their full source, hidden tests included) and
their points. A submission links its cells to them only by ``grade_id``, which a student can
delete, copy or move; ``locked`` and ``solution`` flags they can set at will. So:

- the items to grade are the gradebook's test cells, whatever the submission holds;
- an answer is the one cell carrying its ``grade_id`` in the *submitted* file (before
  nbgrader's de-duplication hides a copy); none, or more than one, and the item cannot be
  graded: it fails closed (0, and flagged with the reason);
- a cell is the lab's own (not audited) only when its source is one the lab wrote — a cell
  of the release or source notebook, or a gradebook cell — flags notwithstanding.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import nbformat


def _nbg(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


@dataclass
class Roles:
    answers: list[str]                      # answer ids (code solution cells), gradebook order
    tests: dict[str, str]                   # test id -> its source from the gradebook
    lab: set[str]                           # stripped sources of the lab's own code cells
    at: dict[str, int] = field(default_factory=dict)        # answer id -> its cell's index
    stubs: dict[str, str] = field(default_factory=dict)     # answer id -> the release's cell, stripped
    problems: dict[str, str] = field(default_factory=dict)  # answer id -> why it fails closed

    def answer_of(self, index: int) -> str | None:
        """The answer id whose cell is ``index``, if any."""
        return next((a for a, i in self.at.items() if i == index), None)


def _gradebook(info: dict) -> tuple[list[str], dict[str, str], set[str]]:
    from nbgrader.api import Gradebook
    with Gradebook(info["db_url"]) as gb:
        nb = gb.find_notebook(info["notebook"], info["assignment"])
        sources = {c.name: (c.cell_type, c.source) for c in nb.source_cells}
        solutions = {c.name for c in nb.solution_cells}
        grades = {c.name: c.cell_type for c in nb.grade_cells}
    answers = sorted(n for n in solutions if sources.get(n, ("",))[0] == "code")
    tests = {n: sources[n][1] for n, kind in sorted(grades.items())
             if kind == "code" and n not in solutions and n in sources}
    lab = {src.strip() for n, (kind, src) in sources.items()
           if kind == "code" and n not in solutions}
    return answers, tests, lab


def _files(config, info: dict) -> tuple[set[str], dict[str, str], Path | None]:
    """The lab's code cells in the release and source notebooks, the release's answer cells
    (grade id -> stripped source: the stubs) and the submitted file."""
    from nbgrader.coursedir import CourseDirectory
    cd = CourseDirectory(config=config)
    name = f"{info.get('notebook', '')}.ipynb"
    known, stubs = set(), {}
    for folder in (cd.release_directory, cd.source_directory):
        path = Path(cd.root) / folder / info.get("assignment", "") / name
        if path.is_file():
            cells = [c for c in nbformat.read(path, 4).cells if c.cell_type == "code"]
            known |= {c.source.strip() for c in cells if not _nbg(c).get("solution")}
            if folder == cd.release_directory:
                stubs = {_nbg(c)["grade_id"]: c.source.strip() for c in cells
                         if _nbg(c).get("solution") and _nbg(c).get("grade_id")}
    submitted = Path(cd.format_path(cd.submitted_directory, info.get("student", ""),
                                    info.get("assignment", ""))) / name
    return known, stubs, submitted if submitted.is_file() else None


def _submitted_ids(path: Path | None) -> dict[str, int] | None:
    """grade_id -> how many cells carry it in the file as submitted (None: no file)."""
    if path is None:
        return None
    try:
        cells = json.loads(path.read_text()).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return {}
    counts: dict[str, int] = {}
    for c in cells if isinstance(cells, list) else []:
        gid = _nbg(c).get("grade_id") if isinstance(c, dict) else None
        if isinstance(gid, str):
            counts[gid] = counts.get(gid, 0) + 1
    return counts


def roles(nb, resources: dict, config) -> Roles:
    """The roles of ``nb``'s cells (``resources["nbgrader"]`` names the notebook)."""
    info = resources.get("nbgrader", {})
    answers, tests, lab = _gradebook(info)
    known, stubs, submitted = _files(config, info)
    out = Roles(answers, tests, lab | known, stubs=stubs)
    counts = _submitted_ids(submitted)
    for aid in answers:
        here = [i for i, c in enumerate(nb.cells)
                if c.cell_type == "code" and _nbg(c).get("grade_id") == aid]
        n = counts.get(aid, 0) if counts is not None else len(here)
        if n == 1 and len(here) == 1:
            out.at[aid] = here[0]
        elif n == 0 or not here:
            out.problems[aid] = (f"the answer cell {aid} is missing from the submission "
                                 "(deleted, or its nbgrader metadata removed)")
        else:
            out.problems[aid] = (f"the answer cell {aid} appears {n} times in the submission; "
                                 "which one is the answer is not clear")
    return out
