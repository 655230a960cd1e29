"""The hostile submissions of ``tests/grading/hostile/`` read as cases (see its README):
what each tries, which answer cell it replaces, what it does to that cell's metadata, and
the submitted notebook it makes from a release."""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

HOSTILE = Path(__file__).parent / "grading" / "hostile"
REDTEAM = HOSTILE / "redteam"  # later attacks (see its README); those below attack the sandbox
JUDGE = HOSTILE / "judge"  # attacks on who decides a score (see its README)
REDTEAM3 = HOSTILE / "redteam3"  # the third red team, against the grader package (its README)
VIEWS = HOSTILE / "views"  # attacks on the student process and its package view (its README)
REDTEAM4 = HOSTILE / "redteam4"  # the fourth red team, against the judge-drives design (its README)
REDTEAM5 = HOSTILE / "redteam5"  # the fifth red team, against the per-view template and the tripwire (its README)
REDTEAM6 = HOSTILE / "redteam6"  # the sixth red team, against the code watch and the copy check (its README)
REDTEAM7 = HOSTILE / "redteam7"  # the seventh red team: the containment review, classmates' code run from strings, load (its README)
REDTEAM8 = HOSTILE / "redteam8"  # the eighth red team: the token-order review, copier edits, honest answers (its README)
REDTEAM9 = HOSTILE / "redteam9"  # the ninth red team: the judge beside the kernel, the preflight in the pool (its README)
REDTEAM10 = HOSTILE / "redteam10"  # the tenth red team: warm judges, the run's case memo, the kernels' new flags (its README)
REDTEAM11 = HOSTILE / "redteam11"  # the eleventh red team: the kernel's package view, the CPU cgroups, the page cache (its README)
REDTEAM12 = HOSTILE / "redteam12"  # the twelfth red team: the all-stub kernel view, the child's page-cache filter, the canonical form (its README)
REDTEAM13 = HOSTILE / "redteam13"  # the thirteenth red team: the verdicts-only feedback, the attribute-renaming canonical form (its README)
REDTEAM14 = HOSTILE / "redteam14"  # the fourteenth red team: hidden-case verdicts that quote numbers, the namespace-aware copy review (its README)
REDTEAM15 = HOSTILE / "redteam15"  # the fifteenth red team: the lab's words on hidden verdicts, the exception class the code chose (its README)
REDTEAM16 = HOSTILE / "redteam16"  # the sixteenth red team: state spelled where _Namespaces and _Holders do not look (its README)
REDTEAM17 = HOSTILE / "redteam17"  # the seventeenth red team: 2633a2d's holders, keys and slots: honest answers, spellings beside them (its README)
REDTEAM18 = HOSTILE / "redteam18"  # the eighteenth red team: spelling.py's folds against the class's review (denial of service: repro/ only; its README)
KERNEL = HOSTILE / "kernel"  # forged and malformed messages on the grading kernel's own sockets
SANDBOX_ONLY = {"key_scan", "escape_probe"}
DEFAULT_TARGET = "kc08_01"  # the knowledge check's first item
NEXT_CELL = "# --- next cell ---"


def _nbg(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


@dataclass(frozen=True)
class Case:
    name: str
    what: str                # the first line: what the cell tries
    target: str              # the answer cell it replaces
    metadata: str | None     # None, "drop", "locked", "duplicate" or "extra" (the parts after the
    #                          first become plain code cells right after the answer cell: redteam12)
    cells: tuple[str, ...]   # the source(s) of the cell(s) it submits
    folder: str = ""         # the folder it lies in: hostile, redteam, judge, redteam3, views, …
    others: str | None = None  # None (the other answers wrong) or "honest" (the solutions': a control)

    @property
    def source(self) -> str:
        return "\n".join(self.cells)

    @property
    def notebook_prefix(self) -> str:
        """The two digits of the target's notebook (``ex03_2`` -> ``03``)."""
        return self.target[2:4]


def case(path: Path) -> Case:
    text = path.read_text()
    lines = text.splitlines()
    directives = {}
    for line in lines[1:4]:
        m = re.match(r"#\s*(target|metadata|others):\s*(\S+)", line)
        if m:
            directives[m.group(1)] = m.group(2)
    cells = tuple(part.strip("\n") for part in text.split(NEXT_CELL))
    return Case(path.stem, lines[0].lstrip("# ").strip(), directives.get("target", DEFAULT_TARGET),
                directives.get("metadata"), cells, path.parent.name, directives.get("others"))


def cases() -> list[Case]:
    red = [p for p in sorted(REDTEAM.glob("*.py")) if p.stem not in SANDBOX_ONLY]
    return [case(p) for p in sorted(HOSTILE.glob("*.py")) + red + sorted(JUDGE.glob("*.py"))
            + sorted(REDTEAM3.glob("*.py")) + sorted(VIEWS.glob("*.py"))
            + sorted(REDTEAM4.glob("*.py")) + sorted(REDTEAM5.glob("*.py"))
            + sorted(REDTEAM6.glob("*.py")) + sorted(REDTEAM7.glob("*.py"))
            + sorted(REDTEAM8.glob("*.py")) + sorted(REDTEAM9.glob("*.py"))
            + sorted(REDTEAM10.glob("*.py")) + sorted(REDTEAM11.glob("*.py"))
            + sorted(REDTEAM12.glob("*.py")) + sorted(REDTEAM13.glob("*.py"))
            + sorted(REDTEAM14.glob("*.py")) + sorted(REDTEAM15.glob("*.py"))
            + sorted(REDTEAM16.glob("*.py")) + sorted(REDTEAM17.glob("*.py"))
            + sorted(REDTEAM18.glob("*.py"))
            + sorted(KERNEL.glob("*.py"))]


def submission(release_nb, c: Case, others: dict[str, str]):
    """The release with ``c`` in its target's answer cell (metadata as it says) and
    ``others`` (answer id -> source) in the other answer cells."""
    nb = copy.deepcopy(release_nb)
    out = []
    for cell in nb.cells:
        gid = _nbg(cell).get("grade_id")
        if gid == c.target:
            for k, source in enumerate(c.cells if c.metadata == "duplicate" else
                                   c.cells[:1] if c.metadata == "extra" else [c.source]):
                new = copy.deepcopy(cell)
                new.source = source
                if c.metadata == "drop":
                    new.metadata.pop("nbgrader", None)
                elif c.metadata == "locked":
                    new.metadata["nbgrader"] = {**_nbg(cell), "locked": True}
                out.append(new)
            if c.metadata == "extra":  # the student's own cells after the answer, no metadata
                for source in c.cells[1:]:
                    out.append(nbformat.v4.new_code_cell(source))
            continue
        if gid in others and _nbg(cell).get("solution") and cell.cell_type == "code":
            cell.source = others[gid]
        out.append(cell)
    nb.cells = out
    return nb
