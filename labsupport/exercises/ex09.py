"""Check for notebook 09's open challenge ex09_1: the student's batching policy, scored by
goodput under the SLO against the baselines (``exercises.challenge``).

The driver (``play``) runs the student's class in the lab's simulator behind a seat
(``_Seat``, a lab ``Policy``, which asks the student only while the model is free: each
call costs the trusted pass a check of the grading machinery): each of the student's calls
goes through ``guard.bounded``
(a step limit), sees only copies of what the interface gives (``Waiting`` items, the
virtual ``now``, ``busy``), with the wall clock unplugged (``time``'s clocks raise), and
its answer is checked against the rules before the simulator acts on it. It records the
*schedule* (the batches started) as plain values; the judge rebuilds everything else from
that record with ``challenge.score`` (it replays the batches on the cost model), so a
number in the verdict never comes from where the student's code ran.

Points: one per baseline whose mean goodput over the traces the policy beats by more than
0.1 % (a copy of a baseline ties it: no point). Rule-breakers score 0 with the rule named:
a request dropped or sent twice, a batch over ``max_batch``, an index outside the queue,
a wait that is not ahead, an exception, an endless
loop (the step limit), a wall-clock read, or decisions that differ between two runs of
the same trace (the clock or unseeded randomness read another way).
Under grading the hidden check's verdict is a ``PartialScore`` (the share of the points and
the numbers, kept in the gradebook for ``labgrader leaderboard``; the visible check only
plays the public trace's first requests there); in a notebook the check prints the report and fails
only a policy that beats no baseline.
"""
from __future__ import annotations

import contextlib
import inspect
import threading
import time
from dataclasses import dataclass

import numpy as np

from ..batching.policies import WAIT, Dispatch, Policy, Wait
from ..paths import autograde_mode
from ..sim.simulator import simulate
from . import guard
from .challenge import (BASELINES, SERVICE, ChallengeTrace, RuleBroken, baseline_scores, config,
                        hidden_traces, public_traces, score)
from .guard import LabWords, bounded, case_rng, driver, exercise_check
from .partial import PartialScore
from .plain import class_name, describe, plain, plain_number

EX = "ex09_1"
MARGIN = 1.001  # beating a baseline: a mean goodput above 1.001 × its own
REPLAY = 300    # requests of the first trace played twice (the same decisions, or 0)
BEATEN = " ✓"   # after a baseline's goodput in the report: beaten (``points``)
QUICK = 50      # requests of the public trace the visible check plays under grading
CLOCKS = ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
          "process_time", "process_time_ns", "thread_time", "thread_time_ns")


@dataclass(frozen=True, slots=True)
class Waiting:
    """What a policy sees of one waiting request: arrival (ms, virtual clock), length (tokens)."""
    arrival: float
    length: int


class _Stop(Exception):
    """The student's policy broke a rule (``rule``, a key of ``RULES``): the run ends with
    this message."""

    def __init__(self, message: str, rule: str):
        super().__init__(message)
        self.rule = rule


RULES = {  # what a verdict on a hidden trace says of a broken rule: the lab's words only (the
    #        driver's message, made where the student's code runs, may quote what it returned)
    "steps": "your decide did not finish (a loop that never advances?)",
    "clock": "your policy read the wall clock: decide from queue, now and busy only",
    "crash": "your class or its decide raised an exception",
    "wait": "your policy answered Wait with an until that is not a time (ms) ahead, or None",
    "answer": "decide returned something other than Dispatch or Wait",
    "dispatch": "your policy dispatched positions not in the queue, one twice, or more than "
                "max_batch",
}


class ClockRead(AssertionError):
    pass


@contextlib.contextmanager
def _no_clock():
    """``time``'s clocks raise ``ClockRead`` in this thread while the student's code runs
    (the policy has the virtual ``now``; the wall clock would make its score depend on the
    machine); other threads (a kernel's own) keep their clocks."""
    saved = {name: getattr(time, name) for name in CLOCKS}
    me = threading.get_ident()

    def unplugged(name):
        real = saved[name]

        def clock(*args, **kw):
            if threading.get_ident() == me:
                raise ClockRead("read the wall clock (the time module)")
            return real(*args, **kw)
        return clock
    try:
        for name in CLOCKS:
            setattr(time, name, unplugged(name))
        yield
    finally:
        for name, fn in saved.items():
            setattr(time, name, fn)


def _call(ex: str, fn, *args, what: str):
    """The student's ``fn(*args)`` under the step limit, no wall clock; a crash → ``_Stop``."""
    try:
        with _no_clock():
            return bounded(ex, fn, *args)
    except guard.TooManySteps as err:
        raise _Stop(f"{what} did not finish ({guard.STEP_LIMIT:,} steps: a loop that never "
                    "advances?)", "steps") from None
    except ClockRead as err:
        raise _Stop(f"{what} {err.args[0]}: decide from queue, now and busy only",
                    "clock") from None
    except NotImplementedError as err:
        if guard.is_stub(ex, err):
            raise  # the release stub: "not attempted"
        raise _Stop(f"{what} raised NotImplementedError", "crash") from None
    except Exception as err:  # noqa: BLE001 - any crash of the student's code is a rule broken
        kind = type(err)
        name = class_name(kind) if kind.__module__ == "builtins" else "an exception of its own"
        raise _Stop(f"{what} raised {name}", "crash") from None


class _Seat(Policy):
    """The student's policy as the simulator asks it: copies in, answers checked, the
    batches started written down (``log``: ``[start_ms, [request ids]]``)."""
    name = "ex09_1 seat"

    def __init__(self, ex: str, inner, cfg):
        super().__init__(cfg)
        self.ex, self.inner, self.log = ex, inner, []
        # observe is asked only when the class defines its own (each call costs the grader)
        self.learns = inspect.getattr_static(type(inner), "observe", None) is not Policy.observe

    def decide(self, queue, now, busy):
        if busy:  # the model runs one batch at a time: asked again when it frees
            return WAIT
        view = tuple(Waiting(float(r.arrival), int(r.length)) for r in queue)
        d = _call(self.ex, self.inner.decide, view, float(now), bool(busy),
                  what=f"at {now:.1f} ms your decide")
        if type(d) is Wait:
            until = d.until
            if until is None:
                return WAIT
            try:
                until = plain_number(self.ex, until, "Wait(until)")
            except AssertionError:
                raise _Stop(f"at {now:.1f} ms your policy answered Wait({describe(until)}): until must "
                            "be a number of ms, or None", "wait") from None
            if not until > now:
                raise _Stop(f"at {now:.1f} ms your policy asked to wait until {until:.1f} ms, which is "
                            "not ahead (answer Dispatch, or a time to come)", "wait")
            return Wait(until)
        if type(d) is not Dispatch:
            raise _Stop(f"at {now:.1f} ms decide returned {describe(d)}: answer Dispatch or Wait",
                        "answer")
        try:
            idx = plain(self.ex, d.indices, "Dispatch.indices")
        except AssertionError:
            idx = None
        if type(idx) not in (tuple, list) or not all(type(k) is int for k in idx):
            raise _Stop(f"at {now:.1f} ms Dispatch.indices was not a tuple of queue positions",
                        "dispatch")
        if not idx or min(idx) < 0 or max(idx) >= len(queue):
            raise _Stop(f"at {now:.1f} ms your policy dispatched positions {list(idx)[:8]} from a queue "
                        f"of {len(queue)}", "dispatch")
        if len(set(idx)) != len(idx):
            raise _Stop(f"at {now:.1f} ms your policy dispatched one queue position twice "
                        "(a duplicated request)", "dispatch")
        if len(idx) > self.cfg.max_batch:
            raise _Stop(f"at {now:.1f} ms your policy dispatched {len(idx)} requests (max_batch is "
                        f"{self.cfg.max_batch})", "dispatch")
        self.log.append([float(now), [int(queue[k].id) for k in idx]])
        return Dispatch(tuple(idx))

    def observe(self, size, padded_tokens, ms):
        if self.learns:
            _call(self.ex, self.inner.observe, int(size), int(padded_tokens), float(ms),
                  what="your observe")


def play(ex: str, cls, trace: ChallengeTrace) -> dict:
    """The driver: ``cls(config())`` (a ``BatchConfig``: max_batch 32, the SLO) on ``trace``
    in the simulator; ``{"schedule": [[start_ms, [ids]], …], "error": None | why, "rule": None |
    a key of RULES}``."""
    seat = None
    try:
        inner = _call(ex, cls, config(), what="your class, built with a BatchConfig,")
        seat = _Seat(ex, inner, config())  # its own knobs: the policy's copy may change
        simulate(trace.requests(), seat, SERVICE)
    except _Stop as err:
        return {"schedule": seat.log if seat else [], "error": err.args[0], "rule": err.rule}
    except NotImplementedError as err:  # the release stub: "not attempted", not a crash
        if guard.is_stub(ex, err):
            raise
        return {"schedule": [], "error": "your class raised NotImplementedError", "rule": "crash"}
    return {"schedule": seat.log, "error": None, "rule": None}


# ---- the judge: the record → goodput, points and where goodput was lost ----------------

def _run_of(ex: str, cls, trace: ChallengeTrace, hidden: bool = False) -> list:
    """The schedule of ``cls`` on ``trace`` (``play``, in the student's process); a broken
    rule raises, in the lab's words alone on a ``hidden`` trace (``LabWords``: the driver's
    message may quote what the student's code returned)."""
    rec = plain(ex, driver(ex, play, ex, cls, trace), "the record of your policy's run")
    if type(rec) is not dict or set(rec) != {"schedule", "error", "rule"}:
        raise AssertionError(f"{ex}: the record of your policy's run cannot be read")
    if rec["error"] is not None:
        if hidden:
            raise LabWords(f"{ex}: scores 0: on a hidden trace "
                           f"{RULES.get(rec['rule'], 'your policy broke a rule')}")
        raise AssertionError(f"{ex}: scores 0: {rec['error']}")
    return rec["schedule"]


def evaluate(ex: str, cls, traces: list[ChallengeTrace], hidden: bool = False) -> dict:
    """The student's class and the baselines on ``traces``: per trace ``score``s and the
    means; ``AssertionError`` ("scores 0: …") when the policy broke a rule (``LabWords`` on
    ``hidden`` traces)."""
    if not isinstance(cls, type):
        raise AssertionError(f"{ex}: pass your class ChallengePolicy itself, got {describe(cls)}")
    mine, base = [], {name: [] for name in BASELINES}
    for k, tr in enumerate(traces):
        schedule = _run_of(ex, cls, tr, hidden)
        if k == 0 and _run_of(ex, cls, tr.head(REPLAY), hidden) != \
                _run_of(ex, cls, tr.head(REPLAY), hidden):
            raise LabWords(f"{ex}: scores 0: your policy decided differently in two runs "
                           "of the same trace: decide from queue, now and busy only "
                           "(no wall clock, no unseeded randomness)")
        try:
            mine.append(score(tr, schedule))
        except RuleBroken as err:
            if hidden:  # which request, which time: the policy chose them
                raise LabWords(f"{ex}: scores 0: on a hidden trace your policy's batches "
                               f"broke a rule (a request dropped or sent twice, a batch "
                               f"started too early or while the model ran)") from None
            raise AssertionError(f"{ex}: scores 0: {err.args[0]}") from None
        for name, s in baseline_scores(tr).items():
            base[name].append(s)
    mean = lambda runs, key: float(np.mean([r[key] for r in runs]))  # noqa: E731
    return {"goodput_rps": mean(mine, "goodput_rps"),
            "baselines": {n: mean(runs, "goodput_rps") for n, runs in base.items()},
            "runs": mine, "traces": len(traces)}


def points(result: dict) -> list[str]:
    """The baselines the policy beat (mean goodput above ``MARGIN`` × theirs)."""
    return [n for n, g in result["baselines"].items() if result["goodput_rps"] > MARGIN * g]


def report(ex: str, result: dict) -> str:
    """The verdict's numbers (short, one line): goodput against each baseline (`` ✓``
    after each one beaten), then where goodput was lost (SLO misses, their queue wait and run time, batch
    size, padding)."""
    runs = result["runs"]
    missed, total = sum(r["missed"] for r in runs), sum(r["requests"] for r in runs)
    mean = lambda key: float(np.mean([r[key] for r in runs]))  # noqa: E731
    won = points(result)  # marked, so no reader recomputes them from rounded numbers
    vs = ", ".join(f"{k} {v:.2f}{BEATEN if k in won else ''}"
                   for k, v in result["baselines"].items())
    return (f"goodput {result['goodput_rps']:.2f}/s vs {vs}. SLO misses {missed}/{total}: "
            f"wait {mean('missed_wait_ms'):.0f} ms, run {mean('missed_run_ms'):.0f} ms; "
            f"batch {mean('mean_batch'):.1f}, pad {100 * mean('padding_share'):.0f}%")


def score_policy(cls, traces: list[ChallengeTrace] | None = None) -> dict:
    """The grader's scoring of ``cls`` (``evaluate``) on ``traces`` (default: the public
    trace): mean goodput, each baseline's, the baselines beaten (``beaten``), the verdict's
    numbers (``report``) and each trace's ``score``. Prints the report."""
    result = evaluate(EX, cls, public_traces() if traces is None else traces)
    result["beaten"] = points(result)
    result["report"] = report(EX, result)
    print(f"{len(result['beaten'])}/{len(BASELINES)} baselines beaten "
          f"({', '.join(result['beaten']) or 'none'}): {result['report']}")
    return result


def _grading() -> bool:
    return guard.CONTEXT.tape is not None or autograde_mode()


@exercise_check("ex09_1")
def check_ex09_1(obj, hidden: bool = False) -> None:
    """``obj``: a ``Policy`` subclass; built with a ``BatchConfig`` (``max_batch``,
    ``slo_p99_ms``), its ``decide(queue, now, busy)`` answers ``Dispatch``/``Wait``."""
    if _grading() and not hidden:  # graded: the points come from the hidden traces alone;
        if not isinstance(obj, type):  # here only a start on the public one (the stub shows)
            raise AssertionError(f"{EX}: pass your class ChallengePolicy itself, got "
                                 f"{describe(obj)}")
        _run_of(EX, obj, public_traces()[0].head(QUICK))
        return
    traces = hidden_traces(case_rng(EX, True)) if hidden else public_traces()
    result = evaluate(EX, obj, traces, hidden)
    won = points(result)
    text = report(EX, result)
    if _grading():
        raise PartialScore(EX, len(won), len(BASELINES), text)
    print(f"{EX}: {len(won)}/{len(BASELINES)} baselines beaten "
          f"({', '.join(won) or 'none'}); {text}")
    if not won:
        raise AssertionError(f"{EX}: your policy beats no baseline (not even fifo, one request "
                             f"at a time): {text}")


__all__ = ["check_ex09_1"]
