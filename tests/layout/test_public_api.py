"""The release's public names import, the version is written once, and no module keeps a
second name for a function or class (no aliases, no import shims: issue 18)."""
import ast
import importlib
import re
import tomllib
from pathlib import Path

import pytest

import labsupport

ROOT = Path(labsupport.__file__).resolve().parents[1]
PKG = ROOT / "labsupport"


@pytest.mark.parametrize("name", labsupport.__all__)
def test_every_public_name_imports(name):
    assert getattr(labsupport, name) is not None


def test_every_exercise_module_and_check_imports():
    from labsupport.exercises.registry import EXERCISES, check_of
    for p in sorted((PKG / "exercises").glob("*.py")):
        importlib.import_module(f"labsupport.exercises.{p.stem}")
    for ex, entry in EXERCISES.items():
        if entry.check is not None:
            assert callable(check_of(ex)), entry.check


def test_the_version_is_written_once():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "labsupport.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+)?", labsupport.__version__)


def _aliases(path: Path) -> list[str]:
    """``new = old`` at module level where ``old`` is a function or class of the module."""
    tree = ast.parse(path.read_text())
    defined = {n.name for n in tree.body
               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return [f"{path.relative_to(ROOT)}:{n.lineno} {n.targets[0].id} = {n.value.id}"
            for n in tree.body if isinstance(n, ast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Name)
            and n.value.id in defined]


def test_no_module_keeps_a_second_name_for_its_code():
    found = [a for p in sorted(PKG.rglob("*.py")) for a in _aliases(p)]
    assert not found, f"aliases (callers should use the one name): {found}"


def test_the_package_installs_no_import_hooks():
    import sys
    finders = [f for f in sys.meta_path if type(f).__module__.startswith("labsupport")]
    assert not finders, finders
