"""redteam19 (copied from redteam18): score one answer the way the copy review does (best_match against the lab's
references and the instructors' solution, token order against the solution, flagged alone).
Imported by probe.py and honest.py; LABGRADER_FROM=<dir> loads an older labgrader."""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
if os.environ.get("LABGRADER_FROM"):
    sys.path.insert(0, os.environ["LABGRADER_FROM"])
sys.path.insert(0, str(ROOT / "tests"))

import adapters  # noqa: E402
from labgrader import similarity  # noqa: E402

MARKS = {"### BEGIN SOLUTION", "### END SOLUTION"}


def solution(ex):
    return "\n".join(line for line in adapters.cell(ex).source.splitlines()
                     if line.strip() not in MARKS)


def score(ex, src):
    """(best_match score, how, token order against the solution, flagged alone)"""
    sol = solution(ex)
    refs = {**similarity.reference_sources(ex), "solution": sol}
    given = adapters.cell(ex, "release").source
    flagged = similarity.copy_reviews({ex: src}, {ex: refs}, {}, {ex: given})
    order = similarity.in_order(similarity.tokens(src), similarity.tokens(sol))
    m = similarity.best_match(src, refs, given)
    return (m.score if m else 0.0, m.how if m else "-", order, bool(flagged))


def line(name, ex, src):
    s, how, order, flagged = score(ex, src)
    return f"{name:28s} {ex:7s} best {s:.2f} {how:7s} order {order:.3f} flagged {flagged}"
