"""Scheduler and KV manager on their own (no torch): invariants over random workloads run
through the real engine on the step simulator's clock."""
import subprocess
import sys

import numpy as np
import pytest

from labsupport.decoder import (BlockManager, KVBudgetExceeded, RequestTooLong, Scheduler,
                                SchedulerConfig, DecodeSequence)
from labsupport.decoder.scheduler import kv_admission
from labsupport.decoder.stepsim import StepCost, simulate_steps
from labsupport.decoder.timeline import slot_grid
from labsupport.traffic import Request

COST = StepCost(fixed_ms=1.0, per_seq_ms=0.1, per_token_ms=0.01, per_kv_ms=0.001)


def test_scheduler_and_kvcache_import_no_torch():
    code = ("import sys; import labsupport.decoder, labsupport.decoder.scheduler, "
            "labsupport.decoder.kvcache, labsupport.decoder.stepsim, labsupport.decoder.metrics;"
            "assert 'torch' not in sys.modules, 'torch was imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def _workload(rng, n, max_prompt=40, max_out=30):
    t = np.cumsum(rng.exponential(2.0, n))
    return [Request(i, float(t[i]), int(rng.integers(1, max_prompt + 1)),
                    int(rng.integers(1, max_out + 1))) for i in range(n)]


CONFIGS = [dict(mode="continuous", admission="reserve"),
           dict(mode="continuous", admission="on_demand"),
           dict(mode="request", admission="reserve"),
           dict(mode="request", admission="reserve", pad_finished=False)]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("knobs", CONFIGS, ids=lambda k: "-".join(map(str, k.values())))
def test_invariants_on_random_workloads(seed, knobs):
    rng = np.random.default_rng(seed)
    reqs = _workload(rng, 40)
    cfg = SchedulerConfig(max_seqs=int(rng.integers(1, 9)),
                          max_tokens_per_step=int(rng.integers(1, 64)),
                          kv_budget_tokens=int(rng.integers(72, 400)),
                          block_size=int(rng.choice([4, 8, 16])), **knobs)
    res = simulate_steps(reqs, cfg, cost=COST)
    # every request finished exactly once, with exactly its output length
    assert [s.id for s in res.sequences] == [r.id for r in reqs]
    for s, r in zip(res.sequences, reqs):
        assert len(s.output) == r.output_len and s.finish >= s.first_token >= s.arrival
        assert len(s.token_times) == r.output_len
    num_blocks = cfg.kv_budget_tokens // cfg.block_size
    assert res.peak_kv_blocks <= num_blocks == res.num_blocks
    for st in res.steps:
        assert st.kv_blocks <= num_blocks
        assert st.tokens <= cfg.max_tokens_per_step
        slots = [r[0] for r in st.rows]
        assert len(slots) == len(set(slots)) <= cfg.max_seqs and min(slots) >= 0
        ids = [r[1] for r in st.rows]
        assert len(ids) == len(set(ids))
    if knobs["admission"] == "reserve":
        assert all(s.preemptions == 0 for s in res.sequences)


def test_a_tiny_token_budget_never_stalls_a_static_batch():
    reqs = [Request(i, 0.0, 3, 1 + 3 * i) for i in range(4)]
    res = simulate_steps(reqs, SchedulerConfig(mode="request", max_seqs=4, max_tokens_per_step=2),
                   cost=COST)
    assert [len(s.output) for s in res.sequences] == [1, 4, 7, 10]


def test_on_demand_preempts_under_a_tight_budget_and_still_finishes():
    reqs = [Request(i, 0.0, 10, 40) for i in range(6)]
    res = simulate_steps(reqs, SchedulerConfig(admission="on_demand", max_seqs=6, block_size=4,
                                         kv_budget_tokens=64), cost=COST)
    assert sum(s.preemptions for s in res.sequences) > 0
    assert all(len(s.output) == 40 for s in res.sequences)
    assert res.peak_kv_blocks <= 16


def test_reserve_admits_fewer_at_once_than_on_demand():
    reqs = [Request(i, 0.0, 8, 56) for i in range(8)]
    knobs = dict(max_seqs=8, block_size=8, kv_budget_tokens=256)
    first = {a: len(simulate_steps(reqs, SchedulerConfig(admission=a, **knobs), cost=COST)
                    .steps[0].rows) for a in ("reserve", "on_demand")}
    assert first == {"reserve": 4, "on_demand": 8}   # 4 × 64 reserved vs 8 × 8 prompt tokens


def test_request_too_long_is_rejected_not_queued():
    sched = Scheduler(kv_budget_tokens=64, block_size=16)
    with pytest.raises(RequestTooLong, match="kv_budget_tokens=64"):
        sched.add(DecodeSequence(0, [1] * 60, 10))
    assert not sched.has_work()
    sched.add(DecodeSequence(1, [1] * 54, 10))   # exactly 64 tokens: fits
    assert sched.has_work()


def test_continuous_refills_a_freed_slot_at_the_next_step():
    reqs = [Request(0, 0.0, 4, 2), Request(1, 0.0, 4, 10), Request(2, 0.0, 4, 10)]
    res = simulate_steps(reqs, SchedulerConfig(max_seqs=2), cost=COST)
    grid = slot_grid(res)
    finish_step = next(j for j, st in enumerate(res.steps) if 0 in [r[1] for r in st.rows]
                       and res.sequences[0].finish <= st.start + st.ms)
    assert grid[:, finish_step + 1].tolist().count(2) == 1   # request 2 took the freed place


def test_request_level_holds_places_until_the_batch_ends():
    reqs = [Request(0, 0.0, 4, 2), Request(1, 0.0, 4, 10), Request(2, 0.0, 4, 10)]
    res = simulate_steps(reqs, SchedulerConfig(mode="request", max_seqs=2), cost=COST)
    grid = slot_grid(res)
    assert (grid == -2).sum() == 8                 # request 0 waits 8 steps for request 1
    assert res.sequences[2].admitted >= res.sequences[1].finish
    assert res.steps[3].seqs == 2                  # the finished row still costs a row


def test_kv_admission_rule():
    assert kv_admission(10, 6, free_blocks=1, num_blocks=4, block_size=16) == "admit"
    assert kv_admission(10, 7, free_blocks=1, num_blocks=4, block_size=16) == "wait"
    assert kv_admission(10, 7, 1, 4, 16, admission="on_demand") == "admit"
    assert kv_admission(60, 10, free_blocks=4, num_blocks=4, block_size=16) == "reject"
    assert kv_admission(60, 10, 4, 4, 16, admission="on_demand") == "reject"


def test_block_manager_never_hands_out_more_than_it_has():
    kv = BlockManager(4, block_size=8)
    a, b = DecodeSequence(0, [1], 1), DecodeSequence(1, [1], 1)
    kv.grow(a, 24)
    assert kv.slots(a, 0, 24)[8] == a.block_table[1] * 8
    with pytest.raises(KVBudgetExceeded):
        kv.grow(b, 16)
    kv.free(a)
    kv.grow(b, 32)
    assert kv.used_blocks == 4 == kv.peak_blocks


@pytest.mark.parametrize("bad, match", [
    (dict(mode="static"), "mode"), (dict(admission="lazy"), "admission"),
    (dict(max_seqs=0), "max_seqs"), (dict(kv_budget_tokens=8, block_size=16), "kv_budget"),
    (dict(mode="request", admission="on_demand"), "request")])
def test_config_errors_name_the_knob(bad, match):
    with pytest.raises(ValueError, match=match):
        SchedulerConfig(**bad)


def test_keep_steps_bounds_the_records_of_a_long_running_engine():
    from labsupport.decoder import Engine
    from labsupport.decoder.stepsim import CostRunner
    eng = Engine(CostRunner(COST), SchedulerConfig(max_seqs=2), clock="model", keep_steps=5)
    for i in range(4):
        eng.add([1, 2, 3], 10)
    while eng.has_work():
        eng.step()
    assert eng.num_steps == 20 and 5 <= len(eng.steps) <= 10
