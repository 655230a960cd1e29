"""The one exercise table (``labsupport.exercises.registry.EXERCISES``) and the notebooks
agree: every graded answer cell of ``solutions/`` has an entry and every entry an answer
cell; what each entry names exists; the lab's answers that demo cells fall back to pass
their own checks."""
from importlib import import_module
from pathlib import Path

import nbformat
import pytest

from labsupport.exercises.registry import EXERCISES, check_of, exercise, lab_answer

ROOT = Path(__file__).resolve().parents[2]


def _answer_cells() -> dict[str, str]:
    """grade_id -> cell type, for every answer cell (nbgrader ``solution``) of solutions/."""
    out = {}
    for path in sorted(ROOT.glob("solutions/*/*.ipynb")):
        for c in nbformat.read(path, as_version=4).cells:
            meta = c.metadata.get("nbgrader", {})
            if meta.get("solution") and meta.get("grade_id"):
                out[meta["grade_id"]] = c.cell_type
    return out


ANSWERS = _answer_cells()


def test_every_graded_answer_has_an_entry_and_every_entry_an_answer():
    assert sorted(set(ANSWERS) - set(EXERCISES)) == [], "answer cells missing from EXERCISES"
    assert sorted(set(EXERCISES) - set(ANSWERS)) == [], "EXERCISES without an answer cell"


@pytest.mark.parametrize("ex", sorted(EXERCISES))
def test_an_entry_fits_its_cell(ex):
    entry = EXERCISES[ex]
    if ANSWERS[ex] == "markdown":  # a discussion answer: graded by hand
        assert entry.check is entry.target is entry.fallback is None and not entry.references
        return
    check = check_of(ex)
    assert callable(check) and check.__name__ == f"check_{ex}"
    assert entry.check_module == check.__module__
    assert entry.target and entry.target.isidentifier()


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attr in parts[k:]:
            obj = getattr(obj, attr, None)
        return obj is not None
    return False


@pytest.mark.parametrize("ex", sorted(e for e, v in EXERCISES.items() if v.references or v.fallback))
def test_references_and_the_lab_answer_exist(ex):
    entry = EXERCISES[ex]
    for dotted in entry.references + ((entry.fallback,) if entry.fallback else ()):
        assert dotted.startswith("labsupport.") and _resolves(dotted), f"{ex}: {dotted}"


@pytest.mark.parametrize("ex", sorted(e for e, v in EXERCISES.items() if v.fallback))
def test_the_lab_answer_passes_its_visible_check(ex):
    check = check_of(ex)
    getattr(check, "__wrapped__", check)(lab_answer(ex))


def test_an_unknown_id_is_named():
    with pytest.raises(LookupError, match=r"ex_id='ex99_1' is no exercise of the lab"):
        exercise("ex99_1")
    with pytest.raises(LookupError, match="graded by hand"):
        check_of("ex02_10")
    with pytest.raises(LookupError, match="no lab answer"):
        lab_answer("ex06_1")
