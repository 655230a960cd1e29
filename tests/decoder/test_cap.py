"""Answers that end before their cap (issue 20): every request asks for a fixed cap and
stops at its own end; ``reserve`` must hold KV for the cap, ``on_demand`` grows. Step
simulator, virtual clock: the ratios below are exact for this workload, not timings."""
import pytest

from labsupport.decoder import Engine, SchedulerConfig, metrics
from labsupport.decoder.stepsim import SIM_EOS, CostRunner, StepCost, simulate_steps
from labsupport.decoder.workload import trace_requests
from labsupport.traffic import Request


def test_each_answer_stops_at_its_own_length_under_the_cap():
    reqs = [Request(0, 0.0, 5, 3), Request(1, 0.0, 4, 9), Request(2, 0.0, 6, 40)]
    res = simulate_steps(reqs, max_new_tokens=20, max_seqs=4)
    assert [len(s.output) for s in res.sequences] == [3, 9, 20]        # the last one is cut
    assert [s.stopped for s in res.sequences] == [True, True, False]
    assert res.sequences[0].output[-1] == SIM_EOS and res.sequences[0].max_new_tokens == 20
    assert metrics.summarize_decode(res)["stopped_early"] == 2


def test_without_a_cap_each_request_asks_for_exactly_its_length():
    res = simulate_steps([Request(0, 0.0, 5, 7)])
    assert len(res.sequences[0].output) == 7 and res.sequences[0].max_new_tokens == 7
    assert not res.sequences[0].stopped


def test_reserve_holds_the_cap_on_demand_the_tokens():
    cfg = dict(max_seqs=1, block_size=8, kv_budget_tokens=512)
    reqs = [Request(0, 0.0, 8, 8)]
    held = {adm: max(st.kv_blocks for st in simulate_steps(
        reqs, max_new_tokens=200, admission=adm, **cfg).steps) for adm in ("reserve", "on_demand")}
    assert held == {"reserve": 26, "on_demand": 2}


def test_a_stop_token_ends_a_sequence_added_to_the_engine():
    eng = Engine(CostRunner(ends={0: 2}), SchedulerConfig(max_seqs=1), clock="model")
    seq = eng.add([3, 4], 50, eos_token_id=SIM_EOS, id=0)
    while eng.has_work():
        eng.step()
    assert seq.output == [0, SIM_EOS] and seq.stopped


@pytest.fixture(scope="module")
def capped():
    """The trace workload notebook 06 uses, cap 256, at 2048 KV tokens."""
    reqs = trace_requests(200, rate_scale=200, seed=2)
    out = {}
    for name, cost in (("cpu", StepCost()), ("gpu", StepCost.from_roofline())):
        for adm in ("reserve", "on_demand"):
            out[name, adm] = metrics.summarize_decode(simulate_steps(
                reqs, cost=cost, max_new_tokens=256, max_seqs=32, kv_budget_tokens=2048,
                admission=adm))
    return out


def test_on_the_gpu_shaped_step_on_demand_beats_reserve_by_half(capped):
    r, o = capped["gpu", "reserve"], capped["gpu", "on_demand"]
    assert r["mean_running"] < 0.5 * o["mean_running"], "reserve should admit far fewer"
    assert o["tokens_per_s"] >= 1.5 * r["tokens_per_s"]


def test_the_cpu_step_cost_hides_part_of_it(capped):
    ratio = {w: capped[w, "on_demand"]["tokens_per_s"] / capped[w, "reserve"]["tokens_per_s"]
             for w in ("cpu", "gpu")}
    assert 1.0 < ratio["cpu"] < ratio["gpu"]


def test_gpu_shaped_cost_is_the_roofline_of_llama3_8b_on_an_h100():
    c = StepCost.from_roofline()
    assert c.fixed_ms == pytest.approx(2 * 8.03e9 / 3.35e12 * 1e3)
    assert c.per_token_ms == pytest.approx(2 * 8.03e9 / 989e12 * 1e3)
    assert c.fixed_ms > 250 * c.per_token_ms          # fixed-dominated
    with pytest.raises(ValueError, match="gpu must be one of"):
        StepCost.from_roofline(gpu="A100")


def test_a_bad_cap_is_named():
    with pytest.raises(ValueError, match="max_new_tokens"):
        simulate_steps([Request(0, 0.0, 3, 3)], max_new_tokens=0)
