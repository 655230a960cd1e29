"""The machinery behind notebook 06's scheduler-part checks (ex06_4, ex06_5 in ``ex06``;
ex06_10, ex06_11 in ``ex06_prefix``): the student's rule is plugged into the real
``Scheduler`` (``grow_fn`` / ``admit_fn``) or its ``BlockManager`` (``lookup_fn`` /
``release_fn``) and the engine replays workloads on the step simulator's clock; every step
must match the engine with the lab's own rule, and the message names the first step that
differs."""
from __future__ import annotations

import numpy as np

from ..decoder import Engine, KVBudgetExceeded, SchedulerConfig
from ..decoder.stepsim import CostRunner, StepCost
from ..decoder.workload import shared_prefix_requests
from ..traffic import Request
from .guard import case_rng

COST = StepCost(fixed_ms=1.0, per_seq_ms=0.1, per_token_ms=0.01, per_kv_ms=0.001)


KV_RULES = ("lookup_fn", "release_fn")  # rules that live on the BlockManager


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
    return eng.run([(list(r.payload) if r.payload else [r.id + 1] * r.length, r.output_len,
                     r.arrival, r.id) for r in reqs], max_steps=steps)


def _shape(st) -> tuple:
    return sorted(st.rows), st.tokens, st.preempted, st.kv_blocks


def compare(ex: str, reqs, knobs, hint, cache_hint: str = "", **rules) -> None:
    """Replay ``reqs`` with the student's ``rules`` and with the lab's; fail at the first
    step that differs, with ``hint(ref_step, got_step)``'s advice (``cache_hint`` when only
    the prefix cache's counters differ)."""
    try:
        got = _run(reqs, knobs, **rules)
    except NotImplementedError:
        raise  # the release stub: "not attempted" (guard.exercise_check)
    except (KVBudgetExceeded, ValueError, RuntimeError, IndexError, KeyError,
            TypeError) as err:
        raise AssertionError(f"{ex}: with {knobs}: {type(err).__name__}: {err}") from None
    ref = _run(reqs, knobs)
    for i, (a, b) in enumerate(zip(ref.steps, got.steps)):
        if _shape(a) != _shape(b):
            raise AssertionError(
                f"{ex}: with {knobs}, step {i} differs from the lab's scheduler: it runs "
                f"(place, request, tokens) {sorted(a.rows)} with {a.preempted} preempted; "
                f"yours runs {sorted(b.rows)} with {b.preempted} preempted. {hint(a, b)}")
    if len(ref.steps) != len(got.steps):
        raise AssertionError(f"{ex}: with {knobs} your scheduler ran {len(got.steps)} steps, "
                             f"the lab's {len(ref.steps)}")
    if (got.prefix_hit_tokens, got.evictions) != (ref.prefix_hit_tokens, ref.evictions):
        raise AssertionError(
            f"{ex}: with {knobs} the prefix cache served {got.prefix_hit_tokens} prompt "
            f"tokens and evicted {got.evictions} blocks; the lab's served "
            f"{ref.prefix_hit_tokens} and evicted {ref.evictions}. {cache_hint}")
