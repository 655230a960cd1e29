"""The suite's xdist groups reach xdist's scheduler (tests/xdist_groups.py): the tests that share
one run are one unit of work, the others are units of their own. (``xdist_group`` marks did
not do it: with pytest 9.2, xdist 3.8 drops them without a word.)"""
import ast
from pathlib import Path

import pytest

import xdist_groups



class _LoadGroup:
    """What the scheduler reads of pytest's config under ``-n 2 --dist loadgroup``."""

    def __init__(self, dist: str = "loadgroup"):
        self.dist = dist

    def getvalue(self, name: str):
        return {"dist": self.dist, "tx": ["2*popen"]}[name]


def test_tests_sharing_a_run_are_one_unit_of_work():
    pytest.importorskip("xdist")
    scope = xdist_groups.pytest_xdist_make_scheduler(_LoadGroup(), log=None)._split_scope
    hostile = {scope("tests/grading/test_hostile.py::test_controls_score_as_before"),
               scope("tests/grading/test_hostile.py::test_attack_earns_nothing_or_is_flagged[loop]"),
               scope("tests/grading/test_hostile.py::test_which_attacks_are_flagged")}
    assert len(hostile) == 1
    notebook = {scope(f"tests/notebook/test_solutions.py::{t}[04_encoder_batcher]") for t in
                ("test_solution_notebook_executes", "test_stated_conclusions_hold")}
    assert len(notebook) == 1 and notebook != {
        scope("tests/notebook/test_solutions.py::test_solution_notebook_executes[05_decode_basics]")}
    assert scope("tests/hub/test_walkthrough.py::test_x") == scope("tests/hub/test_student_reads.py::test_y")
    attacks = "tests/grading/test_sandbox_attacks.py::"
    assert scope(attacks + "test_attacks_earn_nothing_and_spare_the_class") == scope(
        attacks + "test_plain_mode_stops_when_the_package_changes[1-leave_procs-rewrite_package]")
    free = ["tests/grading/test_roundtrip.py::test_round_trip", "tests/grading/test_cli.py::test_a",
            "tests/grading/test_cli.py::test_b"]
    assert [scope(n) for n in free] == free  # each its own unit, on whichever worker is free
    assert len(hostile | notebook | {scope(n) for n in free}) == 5


def test_other_distributions_are_left_to_xdist():
    assert xdist_groups.pytest_xdist_make_scheduler(_LoadGroup("load"), log=None) is None



def test_no_test_module_imports_a_conftest():
    """``import conftest`` gets whichever conftest.py pytest imported first (tests/browser's
    when that folder is collected first): the suite's helpers are imported by their own
    module names (``adapters``, ``svc_helpers``, ``xdist_groups``)."""
    tests = Path(__file__).resolve().parent
    found = []
    modules = {*tests.rglob("test_*.py"), *tests.rglob("conftest.py"), *tests.glob("*.py")}
    for path in sorted(modules):  # what pytest imports (variants and hostile cells are cells)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.relative_to(tests)}:{node.lineno}" for n in names
                      if n.split(".")[0] == "conftest"]
    assert found == []
