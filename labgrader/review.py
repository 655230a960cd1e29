"""What a trainer should look at, and why, read back from the gradebook.

``pipeline.FlagForReview`` writes each reason where nbgrader keeps them (the notebook is
*flagged*, the item *needs a manual grade*, the answer cell's *auto comment* says why:
the audit, the trusted pass or the sandbox). ``flags`` reads them for one submission;
``grade autograde`` prints them under each student and ``grade export`` adds them as the
``review`` column, so a flagged item never looks like a plain wrong answer.
"""
from __future__ import annotations

import csv
from pathlib import Path

NO_RESPONSE = "No response."  # nbgrader's own comment on an untouched answer cell


def flags(gb, assignment: str, student: str) -> list[tuple[str, str, str]]:
    """(notebook, item, reason) for every flagged item of one submission."""
    from nbgrader.api import MissingEntry
    try:
        sub = gb.find_submission(assignment, student)
    except MissingEntry:
        return []
    out = []
    for nb in sorted(sub.notebooks, key=lambda n: n.name):
        if not nb.flagged:
            continue
        comments = {c.name: c.auto_comment for c in nb.comments}
        found = [(nb.name, g.name.removesuffix("_test"), comments.get(g.name.removesuffix("_test")))
                 for g in sorted(nb.grades, key=lambda g: g.name) if g.needs_manual_grade]
        found = [(n, item, why) for n, item, why in found if why and why != NO_RESPONSE]
        out += found or [(nb.name, "-", "flagged (see the formgrader)")]
    return out


def grouped(found: list[tuple[str, str, str]]) -> list[str]:
    """One ``items: reason`` per distinct reason (a killed notebook costs many items)."""
    by_reason: dict[str, list[str]] = {}
    for _, item, why in found:
        by_reason.setdefault(why, []).append(item)
    out = []
    for why, items in by_reason.items():
        names = ", ".join(items) if len(items) <= 4 else \
            f"{items[0]}, {items[1]}, … {items[-1]} ({len(items)} items)"
        out.append(f"{names}: {why}")
    return out


def lines(db_url: str, assignment: str, student: str) -> list[str]:
    """The flags of one submission as lines for the terminal (none when nothing is flagged)."""
    from nbgrader.api import Gradebook
    with Gradebook(db_url) as gb:
        return [f"     review {text}" for text in grouped(flags(gb, assignment, student))]


def add_review_column(csv_path: Path | str, db_url: str) -> None:
    """Add ``review`` (the flagged items and their reasons, `` | ``-separated) to nbgrader's
    CSV export, matched on its ``assignment`` and ``student_id`` columns."""
    from nbgrader.api import Gradebook
    path = Path(csv_path)
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    with Gradebook(db_url) as gb:
        for row in rows:
            found = flags(gb, row["assignment"], row["student_id"])
            row["review"] = " | ".join(grouped(found))
    with path.open("w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=[*rows[0].keys()])
        out.writeheader()
        out.writerows(rows)
