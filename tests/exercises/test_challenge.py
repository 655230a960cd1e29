"""Notebook 09's challenge (ex09_1): the one scorer, the rules, and a held-out class of
policies (better than, equal to and worse than the baselines, and rule-breakers) ranked as
they should be on the hidden traces of several grading runs; the lab's answer beats fifo on
every hidden trace. Policies live in ``tests/exercises/challenge_policies/`` (not shipped)."""
import runpy
from pathlib import Path

import numpy as np
import pytest

from challenge_marks import assert_marks_agree
from labgrader import leaderboard
from labsupport.exercises import challenge, ex09
from labsupport.exercises.guard import GRADER_SEED_ENV, case_rng
from labsupport.exercises.partial import PartialScore, share

HERE = Path(__file__).parent / "challenge_policies"
SEEDS = ("run one", "run two")


def policy(name: str):
    return runpy.run_path(str(HERE / f"{name}.py"))["ChallengePolicy"]


def hidden(seed: str, monkeypatch) -> list:
    monkeypatch.setenv(GRADER_SEED_ENV, seed)
    return challenge.hidden_traces(case_rng("ex09_1", True))


def test_hidden_traces_follow_the_secret(monkeypatch):
    a, b = hidden("s1", monkeypatch), hidden("s1", monkeypatch)
    c = hidden("s2", monkeypatch)
    assert [t.arrival_ms for t in a] == [t.arrival_ms for t in b]
    assert a[0].arrival_ms != c[0].arrival_ms
    assert len(a) == challenge.HIDDEN_SEEDS
    pub = challenge.public_traces()[0]
    assert pub == challenge.public_traces()[0] and pub.arrival_ms != a[0].arrival_ms
    lengths = np.array(pub.length)
    assert lengths.min() >= challenge.MIN_TOKENS and lengths.max() <= challenge.MAX_TOKENS


def test_scorer_rules():
    tr = challenge.public_traces()[0]
    res = challenge.simulate(tr.requests(), "naive", challenge.SERVICE, cfg=challenge.config())
    good = challenge.schedule_of(res)
    assert challenge.score(tr, good)["requests"] == len(tr.arrival_ms)
    broken = {"dropped": good[1:],
              "duplicated": [good[0]] + good,
              "before it arrives": [[good[1][0] - 50.0, good[1][1]]] + good[:1] + good[2:],
              "while the model ran": [good[0], [good[0][0] + 0.5, good[1][1]]] + good[2:]}
    for why, sched in broken.items():
        with pytest.raises(challenge.RuleBroken):
            challenge.score(tr, sched)
    big = [[good[-1][0] + 1e4, list(range(33))]]
    with pytest.raises(challenge.RuleBroken, match="max_batch"):
        challenge.score(tr, big)


def test_lab_answer_beats_fifo_on_every_hidden_trace(monkeypatch):
    for seed in SEEDS:
        for tr in hidden(seed, monkeypatch):
            res = challenge.simulate(tr.requests(), challenge.SloBuckets(challenge.config()),
                                     challenge.SERVICE)
            mine = challenge.score(tr, challenge.schedule_of(res))["goodput_rps"]
            base = challenge.baseline_scores(tr)
            assert mine > base["fifo"]["goodput_rps"], (seed, tr.rate_rps)


ALL = set(challenge.BASELINES)
EXPECTED = {  # held-out policy -> (baselines it must beat, the baseline it ties, if any)
    "better": (ALL, None),
    "equal_bucketed": (ALL - {"bucketed"}, "bucketed"),
    "equal_default": (None, "default"),   # ties the default; the rest as the default does
    "worse": (set(), None),
}
BREAKERS = {"drops_late": "dropped", "lifo_reorders_batch": "dispatched",
            "seeded_clock": "wall clock"}


@pytest.mark.parametrize("seed", SEEDS)
def test_held_out_policies_ranked(seed, monkeypatch):
    monkeypatch.setenv(GRADER_SEED_ENV, seed)
    monkeypatch.setenv("LAB_AUTOGRADE", "1")  # graded: the verdict is a PartialScore
    got = {}
    for name, (want, tie) in EXPECTED.items():
        with pytest.raises(PartialScore) as err:
            ex09.check_ex09_1(policy(name), hidden=True)
        message = f"PartialScore: {err.value.args[0]}"
        goodput, base, beaten = leaderboard.parse(message)
        assert_marks_agree(goodput, base, beaten, message)
        if tie is not None:
            assert goodput == base[tie], (name, message)
            want = set(beaten) if want is None else want  # the default's own standing
        assert set(beaten) == want, (name, message)
        assert share(message) == len(want) / len(challenge.BASELINES)
        got[name] = goodput
    assert got["better"] > got["equal_bucketed"] > got["worse"]
    for name, rule in BREAKERS.items():
        with pytest.raises(AssertionError, match=f"scores 0: .*{rule}") as err:
            ex09.check_ex09_1(policy(name), hidden=True)
        assert not isinstance(err.value, PartialScore)


def test_leaderboard_page(tmp_path):
    rows = [leaderboard.Standing("amy", 5, 5, 170.0, {"fifo": 4.0, "bucketed": 110.0},
                                 ["fifo", "bucketed"]),
            leaderboard.Standing("<bob>", 1, 5, 20.0, {"fifo": 4.0, "bucketed": 110.0}, ["fifo"]),
            leaderboard.Standing("cy", 0, 5, None, {}),
            leaderboard.Standing("dee", 5, 5, 999.0, {"fifo": 4.0, "bucketed": 110.0},
                                 ["fifo", "bucketed"], review="ex09_1: reuses the lab's reference implementation")]
    rows = sorted(rows, key=lambda s: (bool(s.review), s.goodput is None, -(s.goodput or 0)))
    assert [k for k, _ in leaderboard.ranked(rows)] == ["1", "2", "3", "review"]
    page = leaderboard.write_html(rows, tmp_path / "b.html").read_text()
    assert page.count(">under review<") == 1 and "reuses the lab&#x27;s reference" in page
    assert "&lt;bob&gt;" in page and "<bob>" not in page
    assert page.count('class="student"') == 2 and page.count('class="baseline"') == 2
    assert "<script" not in page and "http" not in page.replace('http://www.w3.org/2000/svg', "")
    text = (leaderboard.write_csv(rows, tmp_path / "b.csv", aliases=True)).read_text()
    assert leaderboard.alias("amy") in text and "amy" not in text.split("\n", 1)[1]
    assert [ln.split(",")[-2] for ln in text.splitlines()[1:3]] == ["fifo bucketed", "fifo"]
    assert text.splitlines()[-1].startswith("review,") and text.splitlines()[-1].endswith(
        leaderboard.SHARED_REVIEW)  # the flagged row: unranked; shared (aliases): no reason
    text = (leaderboard.write_csv(rows, tmp_path / "c.csv")).read_text()
    assert text.splitlines()[-1].endswith("reuses the lab's reference implementation")
    lines = leaderboard.lines(rows)
    assert "under review: ex09_1" in lines[4] and lines[1].split()[:2] == ["1", "amy"]
