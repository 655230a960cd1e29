"""Checks for notebook 06's ex06_7: where a speed-up comes from.
tokens/s over the engine's busy time is tokens per step divided by ms per step, so a
speed-up splits into a fuller batch and a longer step. The pairs compared are drawn
workloads on the step simulator: on-demand against reserve under a cap, continuous against
request-level, with a backlog or with idle gaps.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from ..decoder.stepsim import StepCost, simulate_steps
from ..traffic import Request
from . import casememo
from .guard import bounded, case_rng, exercise_check, require_callable as _callable
from .plain import describe, plain


# ---- ex06_7: where a speed-up comes from ---------------------------------------------------

def speedup_ref(fast, slow) -> dict:
    """The lab's answer: tokens/s over busy time, split into tokens per step and ms per
    step, each as the ratio ``fast / slow``."""
    def parts(res):
        tokens = sum(len(s.output) for s in res.sequences)
        busy = sum(st.ms for st in res.steps)
        return 1000.0 * tokens / busy, tokens / len(res.steps), busy / len(res.steps)
    (a, b, c), (x, y, z) = parts(fast), parts(slow)
    return {"tokens_per_s": a / x, "tokens_per_step": b / y, "ms_per_step": c / z}


def _speedup_pairs(hidden: bool):
    """(fast, slow, what) pairs of ``EngineResult``s on drawn trace-like workloads: on-demand
    against reserve under a cap, continuous against request-level, some with idle gaps."""
    rng = case_rng("ex06_7", hidden)
    for i in range(4 if hidden else 2):   # a backlog, then idle gaps; both pairs when hidden
        gap = (0.5, 40.0)[i % 2] * float(rng.uniform(0.8, 1.25))
        reqs = _trace_like(int(rng.integers(24, 60)), rng, gap_ms=gap)
        if i % 2:   # a straggler long after the rest: the engine surely idles before it
            reqs.append(Request(len(reqs), reqs[-1].arrival + 50_000.0, 8, 8))
        cost = StepCost(fixed_ms=float(rng.uniform(0.3, 5.0)), per_seq_ms=float(rng.uniform(0, 0.1)),
                        per_token_ms=float(rng.uniform(0.005, 0.05)), per_kv_ms=0.0002)
        cap = int(rng.integers(150, 300))
        knobs = dict(max_seqs=int(rng.integers(4, 24)), kv_budget_tokens=int(rng.integers(32, 96)) * 16)
        run = partial(simulate_steps, cost=cost, **knobs)
        if i // 2 == i % 2:
            yield (run(reqs, max_new_tokens=cap, admission="on_demand"),
                   run(reqs, max_new_tokens=cap, admission="reserve"),
                   f"on_demand against reserve, {len(reqs)} requests {gap:.1f} ms apart")
        else:
            yield (run(reqs, mode="continuous"), run(reqs, mode="request"),
                   f"continuous against request-level, {len(reqs)} requests {gap:.1f} ms apart")


def _trace_like(n: int, rng: np.random.Generator, gap_ms: float = 3.0) -> list[Request]:
    out = np.clip(np.round(rng.lognormal(3.3, 0.9, n)), 1, 150).astype(int)
    return [Request(i, float(t), int(p), int(o)) for i, (t, p, o) in enumerate(
        zip(np.cumsum(rng.exponential(gap_ms, n)), rng.integers(4, 60, n), out))]


_SPEEDUP_HINTS = {
    "tokens_per_s": ("tokens/s here is generated tokens (the length of every output) over "
                     "the BUSY time: the sum of the steps' ms (ms → s), not first arrival to "
                     "last finish"),
    "tokens_per_step": ("tokens per step = generated tokens / number of steps "
                        "(len(res.steps)); count output tokens, not rows or requests"),
    "ms_per_step": "ms per step = the sum of the steps' ms / number of steps",
}


@exercise_check("ex06_7")
def check_ex06_7(obj, hidden: bool = False) -> None:
    """``obj(fast, slow) -> {"tokens_per_s", "tokens_per_step", "ms_per_step"}``: each the
    ratio fast / slow of two ``EngineResult``s."""
    ex = "ex06_7"
    _callable(ex, obj, "speedup_parts")
    for fast, slow, what in casememo.cases(ex, "pairs", hidden,
                                           lambda: list(_speedup_pairs(hidden))):
        got = plain(ex, bounded(ex, obj, fast, slow))
        want = speedup_ref(fast, slow)
        if type(got) is not dict or not set(want) <= set(got):
            raise AssertionError(f"{ex}: return a dict with keys {sorted(want)}")
        for key, ref in want.items():
            try:
                val = float(got[key])
            except (TypeError, ValueError):
                raise AssertionError(f"{ex}: {key} must be a number, got {describe(got[key])}") \
                    from None
            if np.isclose(val, ref, rtol=1e-6):
                continue
            flip = " (that is slow / fast: divide fast by slow)" if np.isclose(
                val * ref, 1.0, rtol=1e-6) else ""
            raise AssertionError(f"{ex}: {what}: {key} = {val:.4g}, the lab gets {ref:.4g}"
                                 f"{flip}. {_SPEEDUP_HINTS[key]}")
        if not np.isclose(float(got["tokens_per_s"]),
                          float(got["tokens_per_step"]) / float(got["ms_per_step"]), rtol=1e-6):
            raise AssertionError(f"{ex}: tokens_per_s must equal tokens_per_step / ms_per_step")
