"""Checks for notebook 06 (the continuous decoder). References: ``labsupport.decoder``'s
scheduler (``kv_admission``) and step simulator; student functions run under the step
limit of ``guard.bounded``, so an endless loop fails with a message instead of hanging.
ex06_7 (where a speed-up comes from) lives in ``ex06_speedup``, the block-pool design
(ex06_8) in ``ex06_blocks``, the ragged mask (ex06_9) in ``ex06_step``, the prefix-cache
lookup (ex06_10) in ``ex06_prefix`` (``registry.EXERCISES`` names each check's module).
"""
from __future__ import annotations

import functools

from collections import deque
import numpy as np

from ..decoder import DecodeSequence
from ..decoder.scheduler import kv_admission as ref_kv_admission
from . import casememo, slo_pick
from .guard import bounded, case_rng, exercise_check, require_callable as _callable, driver
from .plain import describe, plain
from .scheduler_parts import cases as _sched_cases
from .scheduler_parts import compare

__all__ = ["check_ex06_1", "check_ex06_2", "check_ex06_4", "check_ex06_5", "check_ex06_6"]


# ---- ex06_1: one iteration: admit, run, retire -------------------------------------------

def _continuous_steps(lengths, max_seqs: int) -> int:
    """Iterations an ideal continuous batcher needs (FIFO, refilled every step)."""
    running, waiting, steps = [], deque(lengths), 0
    while running or waiting:
        while waiting and len(running) < max_seqs:
            running.append(waiting.popleft())
        running = [n - 1 for n in running if n > 1]
        steps += 1
    return steps


def _run_steps(ex: str, obj, lengths: list[int], max_seqs: int) -> dict:
    """Beside the student's code: call ``obj`` once per step until every sequence has left
    (or a step limit), and write down, as plain values, what it did — which sequences each
    ``decode`` call ran, which it returned as finished, what was left in running and
    waiting. The judge reads only this (``_judge_steps``): sequences are named by id, an
    object that is none of them by None."""
    seqs = [DecodeSequence(i, [1], n) for i, n in enumerate(lengths)]
    running, waiting = [], deque(seqs)

    def ids(objs) -> list:
        return [next((q.id for q in seqs if s is q), None) for s in objs]
    steps, limit = [], 3 * sum(lengths) + 10
    while (running or waiting) and len(steps) < limit:
        ran: list[list] = []

        def decode(batch):
            batch = list(batch)
            ran.append(ids(batch))
            for s in batch:
                if any(s is q for q in seqs) and not s.done:
                    s.output.append(len(s.output))
        got = bounded(ex, obj, running, waiting, max_seqs, decode)
        steps.append({"ran": ran, "finished": ids(got) if type(got) in (list, tuple) else describe(got),
                      "running": ids(running), "waiting": len(waiting)})
    return {"steps": steps, "left": bool(running or waiting)}


def _judge_steps(ex: str, lengths: list[int], max_seqs: int, trace: dict) -> None:
    """The rules of one continuous iteration, checked on ``_run_steps``'s record: admit
    into free places (oldest first), run, retire what finished."""
    seqs = [DecodeSequence(i, [1], n) for i, n in enumerate(lengths)]
    first_run: dict[int, int] = {}
    finished: list[int] = []
    limit = 3 * sum(lengths) + 10
    for step, rec in enumerate(trace["steps"], start=1):
        for batch in rec["ran"]:
            if len(batch) > max_seqs:
                raise AssertionError(f"{ex}: {len(batch)} sequences ran in one step but "
                                     f"max_seqs={max_seqs}: admit only while there is a free place")
            if None in batch:
                raise AssertionError(f"{ex}: decode() got an object that is not one of the "
                                     "sequences from waiting; run the sequences themselves")
            if len(set(batch)) < len(batch):
                raise AssertionError(f"{ex}: a sequence ran twice in one step")
            for i in batch:
                s = seqs[i]
                if s.done:
                    raise AssertionError(f"{ex}: sequence {s.id} ran again after it had finished: "
                                         "retire finished sequences from running so their place "
                                         "is freed")
                first_run.setdefault(s.id, step)
                s.output.append(len(s.output))
        got = rec["finished"]
        if type(got) is not list:
            raise AssertionError(f"{ex}: return the list of sequences that finished in this "
                                 f"step, got {describe(got)}")
        if None in got:  # identity: no student object
            raise AssertionError(f"{ex}: return the finished sequences themselves (the objects "
                                 "from running), not copies or other objects")
        for i in got:
            s = seqs[i]
            if not s.done:
                raise AssertionError(f"{ex}: sequence {s.id} was returned as finished but it "
                                     f"has {len(s.output)} of {s.max_new_tokens} tokens")
            if i in rec["running"]:
                raise AssertionError(f"{ex}: sequence {s.id} finished but is still in running: "
                                     "remove it, so its place is free for the next step")
        finished += got
    step = len(trace["steps"])
    if trace["left"]:
        left = trace["steps"][-1]["waiting"] if trace["steps"] else len(seqs)
        raise AssertionError(f"{ex}: after {limit} steps {left} sequences still "
                             "wait: each step must admit from waiting into free places")
    ids = sorted(finished)
    if ids != list(range(len(seqs))):
        lost = sorted(set(range(len(seqs))) - set(ids))
        raise AssertionError(f"{ex}: every sequence must be returned exactly once when it "
                             f"finishes; lost {lost[:5]}, duplicated "
                             f"{sorted({i for i in ids if ids.count(i) > 1})[:5]}")
    order = [first_run[i] for i in range(len(seqs))]
    if order != sorted(order):
        raise AssertionError(f"{ex}: admit from the head of waiting (oldest first): a later "
                             "request started before an earlier one")
    want = _continuous_steps(lengths, max_seqs)
    if step != want:
        raise AssertionError(
            f"{ex}: {len(lengths)} sequences took {step} steps with max_seqs={max_seqs}; an "
            f"iteration-level batcher needs {want}. In each step admit first (fill every free "
            "place), then run, then retire: a place freed in this step is refilled in the next")


def _drive(ex: str, obj, lengths: list[int], max_seqs: int) -> None:
    trace = driver(ex, _run_steps, ex, obj, lengths, max_seqs)
    _judge_steps(ex, lengths, max_seqs, plain(ex, trace, "the record of your steps"))


@exercise_check("ex06_1")
def check_ex06_1(obj, hidden: bool = False, ex: str = "ex06_1") -> None:
    """``obj(running, waiting, max_seqs, decode) -> finished``: one continuous iteration."""
    _callable(ex, obj, "schedule_step")
    if not hidden:
        cases = [([3, 1, 2, 5, 1], 2), ([2, 2, 2], 3)]
    else:
        rng = case_rng(ex, True)
        cases = [([int(rng.integers(1, 4))], 1),
                 (rng.integers(1, 8, int(rng.integers(3, 7))).tolist(), 1),
                 (rng.integers(1, 30, int(rng.integers(20, 50))).tolist(),
                  int(rng.integers(2, 9))),
                 (rng.integers(1, 5, int(rng.integers(5, 15))).tolist(),
                  int(rng.integers(10, 20)))]
    for lengths, max_seqs in cases:
        _drive(ex, obj, [int(n) for n in lengths], max_seqs)


# ---- ex06_2: the KV-budget admission check -----------------------------------------------

@exercise_check("ex06_2")
def check_ex06_2(obj, hidden: bool = False, ex: str = "ex06_2") -> None:
    """``obj(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size, admission)``
    -> "admit" | "wait" | "reject"."""
    _callable(ex, obj, "kv_admission")
    if not hidden:
        cases = [(10, 6, 1, 4, 16, "reserve"), (10, 7, 1, 4, 16, "reserve"),
                 (10, 7, 1, 4, 16, "on_demand"), (60, 10, 4, 4, 16, "reserve"),
                 (60, 10, 4, 4, 16, "on_demand"), (20, 20, 2, 8, 16, "on_demand")]
    else:
        rng = case_rng(ex, True)
        cases = [(int(rng.integers(1, 90)), int(rng.integers(1, 60)), int(f), int(n), int(b), a)
                 for _ in range(150)
                 for b in [int(rng.choice([1, 4, 8, 16]))]
                 for n in [rng.integers(1, 12)] for f in [rng.integers(0, n + 1)]
                 for a in ["reserve", "on_demand"]]
        b = int(rng.choice([4, 8, 16]))  # exactly at a block edge, and one token past it
        k = int(rng.integers(1, 4))
        cases += [(b * k, b * k, 2 * k, 2 * k, b, "reserve"),
                  (b * k + 1, b * k - 1, 2 * k, 2 * k, b, "reserve"),
                  (1, 2 * b * k, 2 * k, 2 * k, b, "on_demand"),
                  (1, 2 * b * k + 1, 2 * k + 3, 2 * k, b, "on_demand")]
    for p, m, free, nb, bs, adm in cases:
        got = plain(ex, bounded(ex, obj, p, m, free, nb, bs, adm))
        want = ref_kv_admission(p, m, free, nb, bs, adm)
        if type(got) is str and got == want:
            continue
        call = (f"kv_admission(prompt_len={p}, max_new_tokens={m}, free_blocks={free}, "
                f"num_blocks={nb}, block_size={bs}, admission={adm!r})")
        if type(got) is not str or got not in ("admit", "wait", "reject"):
            raise AssertionError(f"{ex}: return 'admit', 'wait' or 'reject'; {call} returned "
                                 f"{describe(got)}")
        if want == "reject":
            hint = ("this request needs more blocks than the whole budget: it can never run, "
                    "so waiting would queue it forever. Reject it")
        elif got == "reject":
            hint = ("this request fits the whole budget once others finish: do not reject it "
                    "(count whole blocks: a partly used block still takes a block)")
        elif got == "admit":
            hint = ("that admits past the budget: compare the blocks it needs now with the "
                    "FREE blocks (reserve: prompt + max_new_tokens; on_demand: the prompt), "
                    "rounded up to whole blocks")
        else:
            hint = ("it fits the free blocks now (reserve: prompt + max_new_tokens; "
                    "on_demand: only the prompt, rounded up to whole blocks): admit it")
        raise AssertionError(f"{ex}: {call} returned {describe(got)}: {hint}")


# ---- ex06_4, ex06_5: scheduler parts, run inside the real scheduler --------------------

def _grow_hint(a, b) -> str:
    if b.preempted > a.preempted:
        return ("You preempted more than needed: stop as soon as kv.can_grow(seq, n_tokens), "
                "and take victims from the latest arrival, running[-1]")
    if b.preempted < a.preempted:
        return "Keep preempting the latest arrival (running[-1]) while too few blocks are free"
    return ("Preempt the LATEST ARRIVAL among the running sequences (running[-1]), not another one; return False "
            "only when seq itself was preempted, True once kv.grow(seq, n_tokens) succeeded")


def _grow_rule(ex: str, obj, seq, n_tokens, running, kv, preempt) -> bool:
    """The scheduler's growth rule around the student's ``obj`` (``check_ex06_4``)."""
    def victim(v):  # a preempted sequence must be one of running, not an object of yours
        if not any(v is r for r in running):
            raise AssertionError(f"{ex}: preempt() takes a sequence from running")
        return preempt(v)
    out = bounded(ex, obj, seq, n_tokens, running, kv, victim)
    if type(out) is not bool:
        raise AssertionError(f"{ex}: return True (seq holds its blocks) or False (seq "
                             f"itself was preempted), got {describe(out)}")
    return out


@exercise_check("ex06_4")
def check_ex06_4(obj, hidden: bool = False) -> None:
    """``obj(seq, n_tokens, running, kv, preempt) -> bool``: on-demand growth."""
    ex = "ex06_4"
    _callable(ex, obj, "grow_or_preempt")
    rule = functools.partial(_grow_rule, ex, obj)  # by reference: the judge sends it as it is
    for reqs, knobs in _sched_cases(ex, hidden):
        compare(ex, reqs, knobs, _grow_hint, grow_fn=rule)


def _admit_hint(a, b) -> str:
    if len(b.rows) < len(a.rows) or b.tokens < a.tokens:
        return ("Keep admitting while a place is free, tokens are left in the step's budget "
                "and admit(seq) says it fits; give each one n = min(seq.uncached, budget) "
                "tokens, computed after admit (a cached prefix shrinks seq.uncached)")
    return ("Stop at the first sequence that does not fit (FIFO), and when the step's token "
            "budget is spent")


def _admit_rule(ex: str, obj, waiting, free_places, budget, admit, feed):
    """The scheduler's admission rule around the student's ``obj`` (``check_ex06_5``)."""
    def fed(seq, n):  # the token count reaches the scheduler as a plain int
        n = plain(ex, n, "the n you feed")
        if type(n) is not int:
            raise AssertionError(f"{ex}: feed(seq, n) takes an int n, got {describe(n)}")
        return feed(seq, n)
    return bounded(ex, obj, waiting, free_places, budget, admit, fed)


@exercise_check("ex06_5")
def check_ex06_5(obj, hidden: bool = False) -> None:
    """``obj(waiting, free_places, budget, admit, feed)``: continuous admission under the
    step's token budget, with chunked prefill."""
    ex = "ex06_5"
    _callable(ex, obj, "admit_under_budget")
    rule = functools.partial(_admit_rule, ex, obj)  # by reference: the judge sends it as it is
    for reqs, knobs in _sched_cases(ex, hidden):
        compare(ex, reqs, knobs, _admit_hint, admit_fn=rule)


# ---- ex06_6: pick max_seqs for an SLO from a sweep ---------------------------------------

@exercise_check("ex06_6")
def check_ex06_6(obj, hidden: bool = False) -> None:
    """``obj(rows, slo_ttft_ms, slo_tpot_ms) -> max_seqs | None``: the row with the most
    goodput among those meeting both p99 SLOs, ties to the smaller ``max_seqs``."""
    ex = "ex06_6"
    _callable(ex, obj, "pick_max_seqs")
    for rows, ttft, tpot, what in casememo.cases(ex, "sweeps", hidden,
                                                  lambda: slo_pick.cases(hidden)):
        got = plain(ex, bounded(ex, obj, [dict(r) for r in rows], ttft, tpot))
        want = slo_pick.pick(rows, ttft, tpot)
        if type(got) not in (int, type(None)):
            raise AssertionError(f"{ex}: return an int max_seqs or None, got {describe(got)}")
        if got == want and (got is None) == (want is None):
            continue
        raise AssertionError(
            f"{ex}: SLO TTFT p99 <= {ttft} ms, TPOT p99 <= {tpot} ms ({what}): you picked "
            f"{got!r}, the lab picks {want!r}. {slo_pick.hint(rows, ttft, tpot, got)}")
