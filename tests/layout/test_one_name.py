"""One name, one meaning (issue 9, item 6): the names that meant two things are defined once;
the second meaning has its own name (no alias keeps the old spelling: issue 18)."""
import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "labsupport"
ONCE = ("utilisation", "timed", "load_model", "summarize", "simulate", "Sequence")


def _defined(name: str) -> list[str]:
    return [str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
            for node in ast.parse(p.read_text()).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.name == name]


@pytest.mark.parametrize("name", ONCE)
def test_each_name_is_defined_once(name):
    assert len(_defined(name)) <= 1, f"{name} is defined in {_defined(name)}: rename one"
