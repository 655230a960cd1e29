"""``labgrader leaderboard``: the class's standings in notebook 09's challenge, from the
gradebook.

Each graded submission of the challenge item keeps its verdict's numbers as the answer's
comment (``pipeline.JudgedSaveAutoGrades``: ``goodput G/s vs fifo F ✓, window W, …``: the
policy's mean goodput on the hidden traces and each baseline's on the same traces, a ✓ after
each one the judge counted beaten: the printed numbers are rounded, so the marks, not a
comparison of them, say which).
``standings`` reads them back (one ``Standing`` per student; a submission without numbers,
a rule-breaker or one not graded yet, ranks last with its score; a flagged one — the grader
found tampering, the lab's own code, a copy: ``review.flags`` — is not ranked: it is listed
after the ranked rows with the reason, "under review", until a trainer has looked), ``write_csv`` and
``write_html`` write them (one static page: a table and an inline SVG plot of each
student's goodput against the baselines; no script, no CDN). ``--alias`` shows each
student by a stable alias (``alias``) instead of their id, and a flagged row without its
reasons (they may name a classmate: ``SHARED_REVIEW``).
"""
from __future__ import annotations

import csv
import hashlib
import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from labsupport.exercises.ex09 import BEATEN

ASSIGNMENT, NOTEBOOK, ITEM = "09_challenge", "09_challenge", "ex09_1"
_GOODPUT = re.compile(r"goodput ([0-9.]+)/s vs ((?:\w+ [0-9.]+(?:%s)?(?:, )?)+)\." % BEATEN)
_ANIMALS = ("otter", "heron", "lynx", "ibex", "wren", "orca", "panda", "koala", "gecko",
            "bison", "crane", "moose", "finch", "tapir", "lemur", "viper")


@dataclass
class Standing:
    """One student's row: their points, goodput (req/s; None: no numbers), the
    baselines' goodput on the same hidden traces, and why a trainer should look first
    (``review``: empty when nothing was flagged)."""
    student: str
    points: float
    max_points: float
    goodput: float | None
    baselines: dict[str, float] = field(default_factory=dict)
    beaten: list[str] = field(default_factory=list)
    review: str = ""


def parse(comment: str | None) -> tuple[float | None, dict[str, float], list[str]]:
    """(goodput, {baseline: goodput}, [baselines beaten]) from a verdict's numbers, or
    (None, {}, []). The beaten ones are those the judge marked (``ex09.BEATEN``): the
    printed numbers are rounded, so they are never compared again here."""
    m = _GOODPUT.search(comment or "")
    if not m:
        return None, {}, []
    base, beaten = {}, []
    for part in filter(None, m.group(2).split(", ")):
        if part.endswith(BEATEN):
            part = part[:-len(BEATEN)]
            beaten.append(part.rsplit(" ", 1)[0])
        name, value = part.rsplit(" ", 1)
        base[name] = float(value)
    return float(m.group(1)), base, beaten


def alias(student: str, assignment: str = ASSIGNMENT) -> str:
    """A stable alias for ``student`` (an animal and two hex digits, from a hash)."""
    h = hashlib.sha256(f"{assignment}:{student}".encode()).digest()
    return f"{_ANIMALS[h[0] % len(_ANIMALS)]}-{h[1]:02x}"


def standings(db_url: str, assignment: str = ASSIGNMENT, notebook: str = NOTEBOOK,
              item: str = ITEM) -> list[Standing]:
    """Every submission of ``assignment``, best goodput first (no numbers: last, by points;
    flagged: after every ranked row)."""
    from nbgrader.api import Gradebook, MissingEntry

    from .review import grouped, flags
    out = []
    with Gradebook(db_url) as gb:
        for sub in gb.assignment_submissions(assignment):
            try:
                grade = gb.find_grade(f"{item}_test", notebook, assignment, sub.student_id)
                comment = gb.find_comment(item, notebook, assignment, sub.student_id)
            except MissingEntry:
                continue
            goodput, base, beaten = parse(comment.auto_comment)
            why = "; ".join(grouped([f for f in flags(gb, assignment, sub.student_id)
                                     if f[0] == notebook]))
            out.append(Standing(sub.student_id, float(grade.score or 0.0),
                                float(grade.max_score), goodput, base, beaten, why))
    return sorted(out, key=lambda s: (bool(s.review), s.goodput is None, -(s.goodput or 0.0),
                                      -s.points, s.student))


def ranked(rows: list[Standing]) -> list[tuple[str, Standing]]:
    """(rank, row): 1, 2, … for the rows nothing flagged; "review" for the others."""
    out, k = [], 0
    for r in rows:
        if r.review:
            out.append(("review", r))
        else:
            k += 1
            out.append((str(k), r))
    return out


def baseline_means(rows: list[Standing]) -> dict[str, float]:
    """Each baseline's mean goodput over the rows that recorded it."""
    seen: dict[str, list[float]] = {}
    for r in rows:
        for n, g in r.baselines.items():
            seen.setdefault(n, []).append(g)
    return {n: sum(v) / len(v) for n, v in seen.items()}


def _name(r: Standing, aliases: bool) -> str:
    return alias(r.student) if aliases else r.student


SHARED_REVIEW = "a trainer looks first"  # a flagged row's reason on a page shared with the
#                                          class (``aliases``): the reasons may name a classmate


def _why(r: Standing, aliases: bool) -> str:
    return (SHARED_REVIEW if r.review else "") if aliases else r.review


def lines(rows: list[Standing], aliases: bool = False) -> list[str]:
    """The standings as terminal lines."""
    out = [f"{'rank':>6}  {'student':<20} {'points':>7} {'goodput/s':>10}  beats"]
    for k, r in ranked(rows):
        g = f"{r.goodput:.1f}" if r.goodput is not None else "-"
        out.append(f"{k:>6}  {_name(r, aliases):<20} {r.points:>3g}/{r.max_points:<3g} {g:>10}  "
                   f"{', '.join(r.beaten) or '-'}" + (f"  (under review: {_why(r, aliases)})" if r.review else ""))
    base = baseline_means(rows)
    if base:
        out.append("baselines (mean goodput/s): "
                   + ", ".join(f"{n} {g:.1f}" for n, g in base.items()))
    return out


def write_csv(rows: list[Standing], path: Path, aliases: bool = False) -> Path:
    """One row per student: rank, name (or alias), points, goodput, each baseline's."""
    names = list(baseline_means(rows))
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["rank", "student", "points", "max_points", "goodput_rps",
                    *[f"{n}_rps" for n in names], "beaten", "review"])
        for k, r in ranked(rows):
            w.writerow([k, _name(r, aliases), f"{r.points:g}", f"{r.max_points:g}",
                        "" if r.goodput is None else f"{r.goodput:.1f}",
                        *[f"{r.baselines[n]:.1f}" if n in r.baselines else "" for n in names],
                        " ".join(r.beaten), _why(r, aliases)])
    return path


def svg(rows: list[Standing], aliases: bool = False) -> str:
    """A horizontal bar per ranked student (goodput), a dashed line per baseline (its mean)."""
    base = baseline_means(rows)
    scored = [r for r in rows if r.goodput is not None and not r.review]  # ranked rows only
    top = max([r.goodput for r in scored] + list(base.values()) + [1.0]) * 1.1
    left, width, bar, head = 160, 560, 22, 40
    height = head + bar * max(len(scored), 1) + 48
    x = lambda g: left + width * g / top  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" '
             f'height="{height}" role="img" aria-label="goodput of each student against the '
             f'baselines" font-family="sans-serif" font-size="13">']
    for k, r in enumerate(scored):
        y = head + k * bar
        parts.append(f'<text x="{left - 6}" y="{y + 15}" text-anchor="end">'
                     f'{html.escape(_name(r, aliases))}</text>')
        parts.append(f'<rect class="student" x="{left}" y="{y + 3}" width="{x(r.goodput) - left:.1f}"'
                     f' height="{bar - 6}" fill="#3b6ea5"><title>{r.goodput:.1f} req/s</title></rect>')
    groups: list[list[tuple[str, float]]] = []  # baselines drawn closer than 70 px: one label
    for n, g in sorted(base.items(), key=lambda kv: kv[1]):
        if groups and x(g) - x(groups[-1][-1][1]) < 70:
            groups[-1].append((n, g))
        else:
            groups.append([(n, g)])
    for k, group in enumerate(groups):
        for n, g in group:
            parts.append(f'<line class="baseline" x1="{x(g):.1f}" x2="{x(g):.1f}" y1="{head - 4}" '
                         f'y2="{height - 44}" stroke="#c0392b" stroke-dasharray="4 3">'
                         f'<title>{html.escape(n)} {g:.1f} req/s</title></line>')
        mid = sum(x(g) for _, g in group) / len(group)
        parts.append(f'<text class="baseline-label" x="{mid:.1f}" y="{12 + 13 * (k % 2)}" '
                     f'text-anchor="middle" fill="#c0392b">'
                     f'{html.escape(", ".join(n for n, _ in group))}</text>')
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000)
                if top / s <= 8)
    for k in range(int(top // step) + 1):
        parts.append(f'<text x="{x(k * step):.1f}" y="{height - 28}" text-anchor="middle" '
                     f'fill="#555" font-size="11">{k * step:g}</text>')
    parts.append(f'<text x="{left + width / 2}" y="{height - 6}" text-anchor="middle">'
                 'goodput (requests/s within the SLO), mean over the hidden traces</text>')
    parts.append("</svg>")
    return "\n".join(parts)


REVIEW_ROW = ' class="review"'  # a flagged row: unranked, greyed


def write_html(rows: list[Standing], path: Path, aliases: bool = False) -> Path:
    """One static page: the plot, then the table."""
    names = list(baseline_means(rows))
    body = "".join(
        f"<tr{REVIEW_ROW if r.review else ''}><td>{'under review' if r.review else k}</td>"
        f"<td>{html.escape(_name(r, aliases))}</td>"
        f"<td>{r.points:g}/{r.max_points:g}</td>"
        f"<td>{'' if r.goodput is None else f'{r.goodput:.1f}'}</td>"
        + "".join(f"<td>{r.baselines[n]:.1f}</td>" if n in r.baselines else "<td></td>"
                  for n in names)
        + f"<td>{html.escape(', '.join(r.beaten))}</td>"
        f"<td class='why'>{html.escape(_why(r, aliases))}</td></tr>"
        for k, r in ranked(rows))
    heads = "".join(f"<th>{html.escape(n)}</th>" for n in names)
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Leaderboard: {ASSIGNMENT}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}
tr.review{{color:#777}}td.why{{text-align:left}}</style></head>
<body><h1>Leaderboard: the batching challenge ({ITEM})</h1>
<p>Goodput: requests per second finished within the SLO, mean over the grading run's hidden
traces; baselines on the same traces. A submission the grader flagged is listed "under
review", unranked and not plotted, until a trainer has looked at it.</p>
{svg(rows, aliases)}
<table><thead><tr><th>rank</th><th>student</th><th>points</th><th>goodput/s</th>{heads}
<th>beats</th><th>review</th></tr></thead><tbody>{body}</tbody></table></body></html>
"""
    path.write_text(page)
    return path


def main(db_url: str, out_dir: Path, aliases: bool = False,
         assignment: str = ASSIGNMENT) -> list[Standing]:
    """Print the standings, write ``leaderboard.csv`` and ``leaderboard.html`` in ``out_dir``."""
    rows = standings(db_url, assignment)
    for line in lines(rows, aliases):
        print(line)
    out_dir.mkdir(parents=True, exist_ok=True)
    for p in (write_csv(rows, out_dir / "leaderboard.csv", aliases),
              write_html(rows, out_dir / "leaderboard.html", aliases)):
        print(f"wrote {p}")
    return rows
