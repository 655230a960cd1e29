"""docs/architecture.md's points table is the one generated from solutions/."""
from labsupport.exercises import points


def test_points_table_matches_solutions():
    assert points.in_doc(points.DOC.read_text()) == points.table(), (
        "docs/architecture.md is stale: run python -m labsupport.exercises.points --write")


def test_every_graded_item_has_points_and_an_id():
    items = points.graded_items()
    assert len(items) > 30
    assert all(p > 0 and item for _, item, p, _ in items)
    assert len({i for _, i, _, _ in items}) == len(items)  # ids are unique across the course
