"""The reservation waste notebook 06 prints (``metrics.kv_waste``): ``reserve`` holds blocks
for tokens that do not exist yet, ``on_demand`` wastes at most the tail of each sequence's
last block. Step simulator, virtual clock."""
import math

import pytest

from labsupport.decoder import SchedulerConfig, metrics
from labsupport.decoder.stepsim import simulate_steps
from labsupport.decoder.workload import trace_requests
from labsupport.traffic import Request

BS = 8


def _alone(admission: str, prompt: int = 8, out: int = 24):
    cfg = SchedulerConfig(max_seqs=1, block_size=BS, kv_budget_tokens=256, admission=admission)
    return simulate_steps([Request(0, 0.0, prompt, out)], cfg)


def test_reserve_holds_the_whole_length_from_the_first_step():
    res = _alone("reserve")
    held = {st.kv_blocks for st in res.steps if st.kv_tokens}
    assert held == {math.ceil((8 + 24) / BS)}
    assert 0.0 < metrics.kv_waste(res) < 1.0


def test_on_demand_holds_only_the_blocks_its_tokens_fill():
    res = _alone("on_demand")
    assert all(st.kv_blocks == math.ceil(st.kv_tokens / BS) for st in res.steps if st.kv_tokens)
    assert metrics.kv_waste(res) < metrics.kv_waste(_alone("reserve"))


@pytest.mark.parametrize("seed", [0, 1])
def test_on_demand_wastes_less_than_a_block_per_sequence_and_less_than_reserve(seed):
    reqs = trace_requests(120, rate_scale=200, seed=seed)
    waste = {}
    for adm in ("reserve", "on_demand"):
        res = simulate_steps(reqs, SchedulerConfig(max_seqs=16, block_size=BS, kv_budget_tokens=2048,
                                             admission=adm))
        waste[adm] = metrics.kv_waste(res)
        if adm == "on_demand":
            for st in res.steps:  # every holder wastes at most the unused tail of one block
                assert st.kv_blocks * BS - st.kv_tokens < max(len(st.rows), 1) * BS
    assert waste["on_demand"] < waste["reserve"], waste
