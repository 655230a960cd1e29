"""Decode metrics on a hand-checkable run (step simulator, 1 ms per step)."""
import math

from labsupport.decoder import SchedulerConfig
from labsupport.decoder.metrics import summarize_decode
from labsupport.decoder.stepsim import CostRunner, StepCost, simulate_steps
from labsupport.traffic import Request

ONE_MS = StepCost(fixed_ms=1.0, per_seq_ms=0.0, per_token_ms=0.0, per_kv_ms=0.0)


def test_ttft_tpot_e2e_tokens_per_s_by_hand():
    # request 0 at t=0: steps end at 1, 2, 3 ms -> TTFT 1, TPOT 1, E2E 3
    # request 1 arrives at 10 ms (engine idle): steps end at 11, 12 -> TTFT 1, E2E 2
    res = simulate_steps([Request(0, 0.0, 4, 3), Request(1, 10.0, 2, 2)],
                   SchedulerConfig(max_seqs=2), cost=ONE_MS)
    s = summarize_decode(res, slo_ttft_ms=1.0, slo_tpot_ms=0.5)
    assert s["tokens"] == 5 and s["steps"] == 5
    assert math.isclose(s["tokens_per_s"], 1000 * 5 / 12)
    assert s["ttft_p50_ms"] == 1.0 and s["e2e_p99_ms"] > 2.9
    assert s["tpot_p50_ms"] == 1.0
    assert s["slot_util"] == 0.5          # one of two places busy in every step
    assert s["slo_met"] == 0.0            # TPOT 1 ms > 0.5 ms for both


def test_fit_cost_recovers_the_step_cost_model():
    true = StepCost(fixed_ms=2.0, per_seq_ms=0.3, per_token_ms=0.05, per_kv_ms=0.001)
    reqs = [Request(i, 0.5 * i, 3 + i % 7, 2 + i % 11) for i in range(60)]
    res = simulate_steps(reqs, SchedulerConfig(max_seqs=6, max_tokens_per_step=32), cost=true)
    fit = StepCost.fit(res.steps)
    for name in ("fixed_ms", "per_seq_ms", "per_token_ms", "per_kv_ms"):
        assert math.isclose(getattr(fit, name), getattr(true, name), rel_tol=1e-6)
    assert CostRunner(fit).cost is fit
