"""One exercise id names everything (docs/conventions.md, "One exercise id"): the notebook's
number, the heading above the answer cell, the answer cell's and its test cell's
``grade_id``, the check module and function, and the pytest marker. The release stub's
message is checked in test_exercises.py. Catches a renumbering done by halves."""
import re

import nbformat
import pytest

import adapters

HEADING = re.compile(r"^#+ (?:Exercise )?((?:ex|kc)\d\d_\d+)\b", re.M)


def _answer_cells():
    for path in sorted(adapters.ROOT.glob("solutions/*/*.ipynb")):
        heading = None
        for c in nbformat.read(path, as_version=4).cells:
            if c.cell_type == "markdown" and HEADING.search(c.source):
                heading = HEADING.findall(c.source)[-1]
            meta = c.metadata.get("nbgrader", {})
            gid = meta.get("grade_id", "")
            if meta.get("solution") and adapters.EXERCISE_ID.match(f'"grade_id": "{gid}"'):
                yield pytest.param(path, gid, heading, c.cell_type, id=gid)


@pytest.mark.parametrize("path, ex_id, heading, kind", list(_answer_cells()))
def test_one_id_names_it_all(path, ex_id, heading, kind, pytestconfig):
    number = ex_id[2:4]
    assert path.parent.name[:2] == number == path.stem[:2], \
        f"{ex_id} sits in {path.parent.name}: the id's number must be the notebook's"
    assert heading == ex_id, f"the heading above {ex_id}'s answer cell names {heading}"
    graded = {c.metadata.nbgrader["grade_id"]: c.metadata.nbgrader for c in
              nbformat.read(path, as_version=4).cells if "nbgrader" in c.metadata}
    if kind == "code":  # autograded: a test cell named after it, and a check of that name
        assert graded.get(f"{ex_id}_test", {}).get("points"), f"no test cell {ex_id}_test"
        check = adapters.check_function(ex_id)
        assert callable(check) and check.__name__ == f"check_{ex_id}"
        module = check.__module__.rsplit(".", 1)[-1]
        assert module.startswith(ex_id.split("_")[0]), \
            f"{ex_id}'s check belongs in a module named after its notebook, not {module}"
    markers = pytestconfig.getini("markers")
    assert any(m.startswith(f"{ex_id}:") for m in markers), f"no pytest marker {ex_id}"
