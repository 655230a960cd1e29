"""docs/architecture.md stays true (issue 18, Build 6): every path it names exists; a name
written right after a module's path is defined in that module; a name of the package used
in a row of the "where is X" map is defined in a module that row names (the row points to
the right file); every module is listed."""
import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "labsupport"
DOC = ROOT / "docs" / "architecture.md"
SPAN = re.compile(r"`([^`]+)`")
PATH = re.compile(r"^[\w-]+(/[\w.-]+)*(\.py|\.md|\.txt|/)$")
NAME = re.compile(r"^[A-Za-z_]\w*")


def _resolve(span: str) -> Path | None:
    for base in (PKG, ROOT):
        if (base / span).exists():
            return base / span
    return None


@lru_cache(maxsize=None)
def _defined(path: Path) -> frozenset[str]:
    """Names a module defines at its top level (functions, classes, assignments)."""
    out = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return frozenset(out)


GRADER = ROOT / "labgrader"  # the trainers' package, listed by its paths from the root
MODULES = sorted([p for p in PKG.rglob("*.py") if p.name != "__init__.py"]
                 + [p for p in GRADER.rglob("*.py") if p.name not in ("__init__.py", "__main__.py")]
                 + list((ROOT / "peers").rglob("*.py")))
DEFINED_IN = {}
for _m in MODULES:
    for _n in _defined(_m):
        DEFINED_IN.setdefault(_n, set()).add(_m)


def _rows(text: str) -> list[str]:
    """The doc's prose paragraphs and table rows (the units a name is checked within)."""
    body = text.split("## Points per notebook")[0]
    return _split(body)


def _split(body: str) -> list[str]:
    body = re.sub(r"```.*?```", "", body, flags=re.S)  # the layer picture: stems, not paths
    return [r for r in re.split(r"\n(?=\|)|\n\n", body) if r.strip()]


TEXT = DOC.read_text()
ROWS = _rows(TEXT)
MAP = _split(TEXT.split("## Where is X")[1].split("## Points per notebook")[0])


def _paths(row: str) -> list[tuple[int, str]]:
    return [(m.end(), m.group(1)) for m in SPAN.finditer(row) if PATH.match(m.group(1))]


def test_every_path_exists():
    missing = sorted({p for row in ROWS for _, p in _paths(row) if _resolve(p) is None})
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_a_name_right_after_a_module_is_defined_there():
    wrong = []
    for row in ROWS:
        for end, path in _paths(row):
            nxt = SPAN.match(row, end + 1) if row[end:end + 1] == " " else None
            if (not path.endswith(".py") or _resolve(path) is None or nxt is None
                    or PATH.match(nxt.group(1))):
                continue  # a missing path fails test_every_path_exists
            name = NAME.match(nxt.group(1))
            if name and name.group(0) not in _defined(_resolve(path)):
                wrong.append(f"{path} {nxt.group(1)}")
    assert not wrong, f"not defined in the module named before it: {wrong}"


def test_a_package_name_in_a_row_of_the_map_is_defined_in_a_module_of_that_row():
    wrong = []
    for row in MAP:
        named = {_resolve(p) for _, p in _paths(row) if p.endswith(".py")} - {None}
        if not named:
            continue
        for m in SPAN.finditer(row):
            name = NAME.match(m.group(1))
            homes = DEFINED_IN.get(name.group(0), set()) if name else set()
            if homes and not homes & named:
                wrong.append(f"{m.group(1)} (defined in "
                             f"{sorted(str(h.relative_to(ROOT)) for h in homes)})")
    assert not wrong, f"names whose module the row does not name: {sorted(set(wrong))}"


@pytest.mark.parametrize("module", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_is_listed(module):
    rel = module.relative_to(PKG if PKG in module.parents else ROOT)
    assert f"`{rel}`" in TEXT, f"docs/architecture.md does not list {rel}"
