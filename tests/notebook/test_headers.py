"""Each lesson notebook opens with its objectives (numbered from the lesson's six) and the
expected time (issue 10, item 8)."""
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted(p for p in ROOT.glob("solutions/0[0-7]_*/*.ipynb"))


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_notebook_opens_with_objectives_and_time(path):
    first = nbformat.read(path, 4).cells[0]
    assert first.cell_type == "markdown"
    head = first.source.split("\n\n", 2)[1]
    assert head.startswith("**Objectives** (of the lesson's six):"), head[:80]
    nums = [int(n) for n in re.findall(r"(?:: |; )([1-6])\. ", head)]
    assert nums, f"{path.stem}: number the objectives 1–6 as the lesson does"
    assert re.search(r"\*\*Expected time:\*\* about \d+ (minutes|hours?)\.", head), head


def test_the_lesson_notebooks_are_all_there():
    assert len(LESSONS) == 8
