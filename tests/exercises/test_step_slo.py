"""``slo_pick.step_slo``: SLOs in steps of a reference run, set apart from the pick; on the
shipped CPU step cost, near capacity, the goodput pick and the throughput pick differ."""
import math

import pytest

from labsupport.decoder.metrics import summarize_decode
from labsupport.decoder.stepsim import DEFAULT_COST, StepCost, simulate_steps
from labsupport.decoder.workload import at_rate, trace_requests
from labsupport.exercises.slo_pick import pick, step_slo


class Step:
    def __init__(self, ms):
        self.ms = ms


def test_slo_is_steps_times_the_median_step():
    steps = [Step(ms) for ms in (1.0, 3.0, 2.0, 10.0, 2.0)]
    assert step_slo(steps, ttft_steps=50, tpot_steps=1.5) == {"slo_ttft_ms": 100.0,
                                                              "slo_tpot_ms": 3.0}


def _pick_on(scale: float):
    """The pick on a machine whose every step takes ``scale`` times the shipped cost."""
    c = DEFAULT_COST
    cost = StepCost(fixed_ms=scale * c.fixed_ms, per_seq_ms=scale * c.per_seq_ms,
                    per_token_ms=scale * c.per_token_ms, per_kv_ms=scale * c.per_kv_ms)
    reqs = trace_requests(120, seed=8)
    back = simulate_steps(at_rate(reqs, math.inf), cost=cost, max_seqs=32, kv_budget_tokens=8192)
    reqs = at_rate(reqs, 0.8 * summarize_decode(back)["requests_per_s"])
    slo = step_slo(back.steps)
    runs = {m: simulate_steps(reqs, cost=cost, max_seqs=m, kv_budget_tokens=8192)
            for m in (1, 4, 8, 16, 32)}
    return pick([{"max_seqs": m, **summarize_decode(r, **slo)} for m, r in runs.items()], **slo)


def test_a_faster_or_slower_machine_keeps_the_pick():
    """The SLO is in steps, the load a share of capacity: scaling every step by a factor (a
    faster or a slower machine) moves the milliseconds, never the pick."""
    picks = [_pick_on(scale) for scale in (0.3, 1.0, 4.0)]
    assert picks[0] is not None and picks == [picks[1]] * 3


def test_goodput_pick_is_not_the_throughput_pick_on_the_shipped_cost():
    """On the lab's own trace (the synthetic twin, so the test does not depend on whether the
    real Azure file sits in ../shared)."""
    from labsupport.paths import SYNTHETIC_TRACE
    from labsupport.traffic import load_trace
    reqs = trace_requests(200, seed=8, trace=load_trace(SYNTHETIC_TRACE))
    back = simulate_steps(at_rate(reqs, math.inf), cost=DEFAULT_COST, max_seqs=32,
                          kv_budget_tokens=8192)
    reqs = at_rate(reqs, 0.8 * summarize_decode(back)["requests_per_s"])
    slo = step_slo(back.steps)
    rows = [{"max_seqs": m, **summarize_decode(simulate_steps(
        reqs, cost=DEFAULT_COST, max_seqs=m, kv_budget_tokens=8192), **slo)}
        for m in (1, 2, 4, 8, 16, 32, 64)]
    fastest = max(rows, key=lambda r: r["tokens_per_s"])["max_seqs"]
    assert pick(rows, **slo) is not None and pick(rows, **slo) < fastest


def test_no_steps_is_refused():
    with pytest.raises(ValueError, match="steps must hold at least one step"):
        step_slo([])


@pytest.mark.parametrize("name", ["ttft_steps", "tpot_steps"])
@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan])
def test_bad_step_counts_name_the_parameter_and_the_range(name, bad):
    with pytest.raises(ValueError, match=rf"{name} must be a finite number > 0"):
        step_slo([Step(1.0)], **{name: bad})
