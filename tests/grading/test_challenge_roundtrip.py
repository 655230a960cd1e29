"""Notebook 09's challenge graded for real: release → collect → autograde (the sandbox, the
trusted pass and its judge) → feedback → ``labgrader leaderboard``, for a few students:
the solution (5/5), a policy of its own buckets (at least fifo, window and default beaten),
the starter (a copy of the default baseline: it ties it), a rule-breaker (0, with the rule
named) and the untouched release (0). The points come from ``PartialScore`` verdicts, one
per baseline the recorded numbers beat; the numbers the leaderboard reads are the ones the
feedback shows."""
import copy
import shutil
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from labgrader import Course, course_config, leaderboard
from challenge_marks import assert_marks_agree

ROOT = Path(__file__).resolve().parents[2]
A = NB = "09_challenge"
pytestmark = pytest.mark.slow

BUCKETED = '''from labsupport.batching.policies import Policy
from labsupport.batching.shapes import DEFAULT_EDGES, bucket_of


class ChallengePolicy(Policy):
    """Buckets of the lab's edges, the fullest first (no ageing, no SLO)."""

    def decide(self, queue, now, busy):
        from labsupport.batching.policies import WAIT, Dispatch
        if busy or not queue:
            return WAIT
        groups = {}
        for k, r in enumerate(queue):
            groups.setdefault(bucket_of(r.length, DEFAULT_EDGES), []).append(k)
        return Dispatch(tuple(max(groups.values(), key=len)[:self.cfg.max_batch]))
'''
STARTER = '''from labsupport.batching.policies import WAIT, Dispatch, Policy


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        return Dispatch(tuple(range(min(len(queue), self.cfg.max_batch))))
'''
CLOCK = '''import time
from labsupport.batching.policies import WAIT, Dispatch, Policy


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        n = 1 + int(time.perf_counter() * 1e6) % 4
        return Dispatch(tuple(range(min(n, len(queue)))))
'''


def _answer(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if "### " not in line)


def test_challenge_graded(tmp_path, capsys):
    root = tmp_path / "course"
    shutil.copytree(ROOT / "solutions" / A, root / "solutions" / A)
    course = Course(course_config(root))
    assert course.release([A])
    release = nbformat.read(root / "notebooks" / A / f"{NB}.ipynb", 4)
    solution = next(c.source for c in nbformat.read(root / "solutions" / A / f"{NB}.ipynb", 4).cells
                    if c.metadata.get("nbgrader", {}).get("grade_id") == "ex09_1")
    answers = {"full": _answer(solution), "buckets": BUCKETED, "starter": STARTER,
               "clock": CLOCK, "blank": None}
    incoming = tmp_path / "incoming"
    for student, source in answers.items():
        nb = copy.deepcopy(release)
        for c in nb.cells:
            if source and c.metadata.get("nbgrader", {}).get("grade_id") == "ex09_1":
                c.source = source
        out = incoming / student / A / f"{NB}.ipynb"
        out.parent.mkdir(parents=True)
        nbformat.write(nb, out)
    course.collect(incoming)
    assert course.autograde(A)
    with Gradebook(course.coursedir.db_url) as gb:
        score = {s: gb.find_grade("ex09_1_test", NB, A, s).score for s in answers}
        comment = {s: gb.find_comment("ex09_1", NB, A, s).auto_comment for s in answers}
    assert score["full"] == 5.0 and score["clock"] == score["blank"] == 0.0
    for s in ("full", "buckets", "starter"):  # one point per baseline its numbers beat
        goodput, base, beaten = leaderboard.parse(comment[s])
        assert set(base) == {"fifo", "window", "default", "bucketed", "adaptive"}, comment[s]
        assert "SLO misses" in comment[s]
        assert_marks_agree(goodput, base, beaten, comment[s])
        assert score[s] == len(beaten), comment[s]
    board = {s: leaderboard.parse(comment[s]) for s in ("full", "buckets", "starter")}
    assert board["starter"][0] == board["starter"][1]["default"]  # the default, copied: a tie
    assert "default" not in board["starter"][2]
    assert board["full"][0] > board["buckets"][0] > board["starter"][0]
    assert {"fifo", "window", "default"} <= set(board["buckets"][2])
    assert comment["clock"] in (None, "", "No response.")  # a rule broken: no numbers kept
    assert "similar to the instructors' solution" in comment["full"]  # flagged: numbers kept

    assert course.feedback(A)
    page = (root / "autograde" / "feedback" / "clock" / A / f"{NB}.html").read_text()
    assert "wall clock" in page
    page = (root / "autograde" / "feedback" / "full" / A / f"{NB}.html").read_text()
    assert leaderboard.parse(comment["full"])[1]["bucketed"] is not None
    assert f"{leaderboard.parse(comment['full'])[0]:.2f}/s" in page  # the verdict's numbers
    assert "similar to" not in page  # the review's reason is the trainer's (GradesForStudents)

    capsys.readouterr()
    rows = leaderboard.main(course.coursedir.db_url, tmp_path / "board", aliases=True)
    printed = capsys.readouterr().out
    assert [r.student for r in rows][:2] == ["buckets", "starter"]
    assert rows[-1].student == "full" and "similar to the instructors' solution" in rows[-1].review
    assert leaderboard.alias("full") in printed and " full " not in printed
    assert "under review: " in printed.splitlines()[len(rows)]  # the copy: listed last, unranked
    assert "similar to" not in printed  # a shared page names no classmate in its reasons
    page = (tmp_path / "board" / "leaderboard.html").read_text()
    assert page.count('class="student"') == 2 and page.count(">under review<") == 1
    assert "similar to" not in page and leaderboard.SHARED_REVIEW in page
