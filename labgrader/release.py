"""The release (``labgrader release``): nbgrader's GenerateAssignment pipeline with
``ClearSolutionsById``, whose stub names the exercise.

The release stub of an answer cell is what ``ClearSolutionsById`` leaves where the solution
was. It names the exercise (``NotImplementedError("ex02_1: …")``, the one-id rule) and lets
the cell run, so Run All on an unsolved notebook reaches the check cell, which says "not
attempted" (``exercises.guard.exercise_check``):

- in a function body, it raises when the function is called;
- directly in a class body, it becomes an ``__init__`` that raises on construction;
- at the top level of the cell, it binds the answer's name to the error itself.
"""
from __future__ import annotations

from nbgrader.preprocessors import ClearSolutions

from labsupport.exercises.registry import EXERCISES

STUB = 'raise NotImplementedError("{grade_id}: write your {what} here")'
CLASS_STUB = 'def __init__(self, *args, **kwargs):\n    ' + STUB
BINDING_STUB = '{target} = NotImplementedError("{grade_id}: write your {what} here")'


def _stub_context(source: str) -> str:
    """Where the solution region sits: ``"class"`` (directly in a class body), ``"top"``
    (at the cell's top level) or ``"function"``."""
    lines = source.split("\n")
    at = next((i for i, line in enumerate(lines) if "### BEGIN SOLUTION" in line), None)
    if at is None:
        return "function"
    indent = len(lines[at]) - len(lines[at].lstrip())
    if indent == 0:
        return "top"
    for line in reversed(lines[:at]):
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            return "class" if line.lstrip().startswith("class ") else "function"
    return "function"


def stub_for(grade_id: str, source: str) -> str:
    """The release stub of an answer cell: its exercise id in a NotImplementedError."""
    what = "answer" if grade_id.startswith("kc") else "code"
    context = _stub_context(source)
    if context == "class":
        return CLASS_STUB.format(grade_id=grade_id, what=what)
    if context == "top":
        entry = EXERCISES.get(grade_id)
        target = entry.target if entry else None
        if target:
            return BINDING_STUB.format(target=target, grade_id=grade_id, what=what)
    return STUB.format(grade_id=grade_id, what=what)


class ClearSolutionsById(ClearSolutions):
    """nbgrader's ClearSolutions, but the stub names its exercise id (``ex02_1: …``) and
    lets the cell run (``stub_for``): an unsolved notebook runs to its end."""

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.cell_type != "code" or not grade_id:
            return super().preprocess_cell(cell, resources, cell_index)
        saved = self.code_stub
        self.code_stub = {**saved, "python": stub_for(grade_id, cell.source)}
        try:
            return super().preprocess_cell(cell, resources, cell_index)
        finally:
            self.code_stub = saved


def generate_assignment_preprocessors() -> list:
    """nbgrader's GenerateAssignment pipeline with ClearSolutions swapped for ours."""
    from nbgrader.converters import GenerateAssignment
    default = GenerateAssignment.class_traits()["preprocessors"].default()
    return [ClearSolutionsById if p is ClearSolutions else p for p in default]
