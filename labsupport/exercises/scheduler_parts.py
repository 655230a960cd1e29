"""The machinery behind notebook 06's scheduler-part checks (ex06_4, ex06_5 in ``ex06``;
ex06_10 in ``ex06_prefix``): the student's rule is plugged into the real
``Scheduler`` (``grow_fn`` / ``admit_fn``) or its ``BlockManager`` (``lookup_fn``) and the
engine replays workloads on the step simulator's clock; every step
must match the engine with the lab's own rule, and the message names the first step that
differs."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..decoder import Engine, KVBudgetExceeded, SchedulerConfig
from ..decoder.stepsim import CostRunner, StepCost
from ..decoder.workload import shared_prefix_requests
from ..traffic import Request
from .guard import Tampered, case_rng, driver
from .plain import plain

COST = StepCost(fixed_ms=1.0, per_seq_ms=0.1, per_token_ms=0.01, per_kv_ms=0.001)


KV_RULES = ("lookup_fn",)  # rules that live on the BlockManager


def _requests(seed: int, n: int, max_prompt: int, max_out: int) -> list[Request]:
    return drawn_requests(np.random.default_rng(seed), n, max_prompt, max_out)


def drawn_requests(rng: np.random.Generator, n: int, max_prompt: int,
                   max_out: int) -> list[Request]:
    """``n`` requests 1.5 ms apart on average, lengths uniform in 1..max (from ``rng``)."""
    t = np.cumsum(rng.exponential(1.5, n))
    return [Request(i, float(t[i]), int(rng.integers(1, max_prompt + 1)),
                    int(rng.integers(1, max_out + 1))) for i in range(n)]


def cases(ex: str, hidden: bool) -> list[tuple[list[Request], dict]]:
    """Workloads with on-demand KV under pressure (preemptions) and chunked prefill; the
    hidden ones are drawn from the grader's seed (``case_rng``), in the same four shapes."""
    tight = dict(admission="on_demand", block_size=4)
    if not hidden:
        return [(_requests(1, 12, 30, 20), dict(max_seqs=4, kv_budget_tokens=64,
                                                max_tokens_per_step=16, **tight)),
                (_requests(2, 16, 12, 30), dict(max_seqs=6, kv_budget_tokens=96,
                                                max_tokens_per_step=24, **tight))]
    rng = case_rng(ex, True)
    seed = lambda: int(rng.integers(1, 2**31))  # noqa: E731
    pick = lambda lo, hi: int(rng.integers(lo, hi + 1))  # noqa: E731
    shared = shared_prefix_requests(pick(15, 25), pick(16, 32), prefixes=pick(2, 3),
                                    suffix_len=(1, 10), output_len=(1, 16), gap_ms=1.0,
                                    seed=seed())
    max_prompt = pick(30, 50)
    return [(_requests(seed(), pick(20, 35), max_prompt, pick(15, 30)),
             dict(max_seqs=pick(3, 6), kv_budget_tokens=4 * pick(max_prompt // 4 + 10, 30),
                  max_tokens_per_step=pick(8, 16), **tight)),
            (_requests(seed(), pick(16, 30), pick(4, 10), pick(25, 45)),
             dict(max_seqs=pick(5, 10), kv_budget_tokens=4 * pick(15, 22),
                  max_tokens_per_step=64, **tight)),
            (_requests(seed(), pick(15, 25), pick(40, 70), pick(5, 15)),
             dict(max_seqs=pick(2, 4), kv_budget_tokens=8 * pick(12, 20),
                  max_tokens_per_step=pick(5, 9), block_size=8)),
            (shared, dict(max_seqs=pick(3, 5), kv_budget_tokens=4 * pick(22, 30),
                          max_tokens_per_step=pick(16, 24), prefix_caching=True, **tight))]


def _run(reqs, knobs, **rules):
    eng = Engine(CostRunner(COST), SchedulerConfig(**knobs), clock="model")
    for name, fn in rules.items():
        setattr(eng.sched.kv if name in KV_RULES else eng.sched, name, fn)
    steps = 40 * sum(r.length + r.output_len for r in reqs) + 100
    res = eng.run([(list(r.payload) if r.payload else [r.id + 1] * r.length, r.output_len,
                    r.arrival, r.id) for r in reqs], max_steps=steps)
    for name, fn in rules.items():  # the student's rule ran every step, not one put in its place
        if (eng.sched.kv if name in KV_RULES else eng.sched).__dict__.get(name) is not fn:
            raise Tampered(f"the engine's {name} was replaced while the student's rule ran")
    return res


@dataclass(frozen=True)
class Step:
    """What ``compare`` looks at in one engine step."""
    rows: list
    tokens: int
    preempted: int
    kv_blocks: int


def _outcome(reqs, knobs, **rules) -> dict:
    """``_run``'s result as plain values: each step's rows and counts, the prefix cache's
    totals. With the student's rules this runs beside their code and only this goes to the
    judge (``guard.student``)."""
    res = _run(reqs, knobs, **rules)
    return {"steps": [[sorted(list(r) for r in st.rows), st.tokens, st.preempted, st.kv_blocks]
                      for st in res.steps],
            "cache": [res.prefix_hit_tokens, res.evictions]}


def _steps(out: dict) -> list[Step]:
    return [Step(sorted(tuple(r) for r in rows), tokens, pre, kv)
            for rows, tokens, pre, kv in out["steps"]]


def compare(ex: str, reqs, knobs, hint, cache_hint: str = "", **rules) -> None:
    """Replay ``reqs`` with the student's ``rules`` and with the lab's; fail at the first
    step that differs, with ``hint(ref_step, got_step)``'s advice (``cache_hint`` when only
    the prefix cache's counters differ)."""
    try:
        got = plain(ex, driver(ex, _outcome, reqs, knobs, **rules), "the engine's record")
    except NotImplementedError:
        raise  # the release stub: "not attempted" (guard.exercise_check)
    except (KVBudgetExceeded, ValueError, RuntimeError, IndexError, KeyError,
            TypeError) as err:
        raise AssertionError(f"{ex}: with {knobs}: {type(err).__name__}: {err}") from None
    ref = _outcome(reqs, knobs)
    ref_steps, got_steps = _steps(ref), _steps(got)
    for i, (a, b) in enumerate(zip(ref_steps, got_steps)):
        if a != b:
            raise AssertionError(
                f"{ex}: with {knobs}, step {i} differs from the lab's scheduler: it runs "
                f"(place, request, tokens) {a.rows} with {a.preempted} preempted; "
                f"yours runs {b.rows} with {b.preempted} preempted. {hint(a, b)}")
    if len(ref_steps) != len(got_steps):
        raise AssertionError(f"{ex}: with {knobs} your scheduler ran {len(got_steps)} steps, "
                             f"the lab's {len(ref_steps)}")
    if list(got["cache"]) != list(ref["cache"]):
        raise AssertionError(
            f"{ex}: with {knobs} the prefix cache served {got['cache'][0]} prompt "
            f"tokens and evicted {got['cache'][1]} blocks; the lab's served "
            f"{ref['cache'][0]} and evicted {ref['cache'][1]}. {cache_hint}")
