"""The grader is its own package (issue 30, item 8): ``labgrader`` sits above the lab and
imports ``labsupport``; ``labsupport`` (what students install) never imports ``labgrader``,
not even inside a function or by name through ``importlib``; and the students' wheel,
built from the root ``pyproject.toml``, holds ``labsupport`` alone."""
import ast
import tomllib
import zipfile
from pathlib import Path

import pytest

import labsupport

ROOT = Path(__file__).resolve().parents[2]
PKG, GRADER = ROOT / "labsupport", ROOT / "labgrader"


def _mentions_grader(path: Path) -> list[str]:
    """Each import of ``labgrader`` in ``path`` (any depth), and each string naming it."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name.split(".")[0] == "labgrader"]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.split(".")[0] == "labgrader":
                out.append(node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.split(".")[0] == "labgrader" and " " not in node.value:
                out.append(repr(node.value))  # import_module("labgrader…"), a module path
    return out


@pytest.mark.parametrize("path", sorted(PKG.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_labsupport_never_imports_the_grader(path):
    found = _mentions_grader(path)
    assert not found, f"{path.relative_to(ROOT)} reaches the grader: {found}"


def test_the_scan_finds_an_import_inside_a_function(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from labgrader.wire import encode\n    import labgrader.tape\n"
                 "    return __import__('importlib').import_module('labgrader.trusted')\n")
    assert _mentions_grader(f) == ["labgrader.wire", "labgrader.tape", "'labgrader.trusted'"]


def test_the_grader_is_its_own_distribution_with_the_labs_version():
    meta = tomllib.loads((GRADER / "pyproject.toml").read_text())["project"]
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["name"] == "labgrader" and meta["version"] == labsupport.__version__
    assert "labgrader" in meta["scripts"] and "labgrader" not in root["project"]["scripts"]
    assert root["tool"]["setuptools"]["packages"]["find"]["include"] == ["labsupport*"]


@pytest.mark.slow
def test_the_students_wheel_holds_labsupport_only(tmp_path):
    """The wheel of the root ``pyproject.toml``, built as the student pack builds it."""
    from labgrader.pack import build_wheel
    wheel = build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"labsupport"}, tops
    assert not [n for n in names if n.startswith(("keys/", "solutions/")) or "labgrader" in n]
    assert "labsupport/exercises/guard.py" in names  # the checks students run ship
