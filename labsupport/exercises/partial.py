"""Partial points from a check: ``PartialScore``, raised by a check under grading with the
share of an item's points the answer earned and the numbers behind it (notebook 09's
challenge: one point per baseline beaten). The grader (``labgrader.pipeline``) reads the
share back from the judge's verdict (``share``) and keeps the message as the answer's
comment in the gradebook, where the leaderboard reads it."""
from __future__ import annotations

import re

_HEAD = re.compile(r"^PartialScore: (\w+): (\d+)/(\d+) points\b")


class PartialScore(AssertionError):
    """``<ex>: <earned>/<total> points…``: the answer earns ``earned / total`` of the item."""

    def __init__(self, ex: str, earned: int, total: int, detail: str):
        if not 0 <= earned <= total or total < 1:
            raise ValueError(f"earned must lie in 0..total (total >= 1), got {earned}/{total}")
        super().__init__(f"{ex}: {earned}/{total} points. {detail}")


def share(verdict: str) -> float | None:
    """The share of the points a verdict's message (``Type: message``) gives, or None when
    it is not a ``PartialScore``."""
    m = _HEAD.match(verdict or "")
    if not m:
        return None
    earned, total = int(m.group(2)), int(m.group(3))
    return earned / total if 0 <= earned <= total and total else None
