"""Prefix caching in the block manager and scheduler (no torch): reference counts, LRU
eviction of cached blocks nobody holds, the budget, and the tokens it saves."""
import numpy as np
import pytest

from labsupport.decoder import BlockManager, SchedulerConfig, DecodeSequence
from labsupport.decoder.kvcache import block_hash
from labsupport.decoder.stepsim import StepCost, simulate_steps
from labsupport.decoder.workload import shared_prefix_requests

COST = StepCost(fixed_ms=1.0, per_seq_ms=0.1, per_token_ms=0.01, per_kv_ms=0.001)


def _computed(kv, seq, n):
    """Hold ``n`` tokens of ``seq``, as if a step had computed them, and register them."""
    kv.grow(seq, n)
    before, seq.num_cached = seq.num_cached, n
    kv.commit(seq, before)


def test_a_block_name_chains_its_whole_prefix():
    assert block_hash(None, [1, 2]) == block_hash(None, (1, 2))
    assert block_hash(block_hash(None, [1, 2]), [3, 4]) != block_hash(block_hash(None, [9, 2]),
                                                                      [3, 4])


def test_shared_blocks_are_counted_and_survive_their_first_owner():
    kv = BlockManager(8, block_size=4, prefix_caching=True)
    a = DecodeSequence(0, list(range(10)), 5)
    _computed(kv, a, 10)                         # blocks 0, 1 full; block 2 partial
    assert kv.cached_blocks == 2
    b = DecodeSequence(1, list(range(8)) + [50, 51, 52], 5)
    hits = kv.prefix_hits(b)
    assert hits == a.block_table[:2]
    kv.share(b, hits)
    assert b.num_cached == 8 and [kv.ref[x] for x in hits] == [2, 2]
    kv.free(a)                                   # a leaves: b still holds the prefix
    assert [kv.ref[x] for x in hits] == [1, 1] and kv.used_blocks == 2
    c = DecodeSequence(2, [0] * 3, 20)
    kv.grow(c, 24)                               # takes every free block
    assert not set(c.block_table) & set(hits), "a block still held was handed out"


def test_a_full_prompt_hit_still_leaves_one_token_to_feed():
    kv = BlockManager(8, block_size=4, prefix_caching=True)
    a = DecodeSequence(0, list(range(8)), 1)
    _computed(kv, a, 8)
    b = DecodeSequence(1, list(range(8)), 1)           # the very same prompt
    assert len(kv.prefix_hits(b)) == 1           # 7 of 8 tokens could be shared: 1 block


def test_unheld_cached_blocks_are_evicted_least_recently_released_first():
    kv = BlockManager(4, block_size=2, prefix_caching=True)
    old, new = DecodeSequence(0, [1, 2, 3], 1), DecodeSequence(1, [7, 8, 9], 1)
    _computed(kv, old, 3)
    _computed(kv, new, 3)
    kv.free(old)
    kv.free(new)
    assert kv.num_free == 4 and kv.cached_blocks == 2     # evictable blocks count as free
    x = DecodeSequence(2, [5], 2)
    kv.grow(x, 4)                                # the two nameless blocks are used first
    assert kv.evictions == 0 and kv.prefix_hits(DecodeSequence(3, [1, 2, 3], 1))
    kv.grow(x, 6)                                # now one cached block must go: the oldest
    assert kv.evictions == 1
    assert not kv.prefix_hits(DecodeSequence(3, [1, 2, 3], 1))
    assert kv.prefix_hits(DecodeSequence(4, [7, 8, 9], 1))


def test_off_by_default_and_then_nothing_is_shared():
    kv = BlockManager(8, block_size=4)
    a = DecodeSequence(0, list(range(10)), 5)
    _computed(kv, a, 10)
    assert kv.cached_blocks == 0 and kv.prefix_hits(DecodeSequence(1, list(range(10)), 1)) == []


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("admission", ["reserve", "on_demand"])
def test_budget_and_lengths_hold_with_caching_under_pressure(seed, admission):
    rng = np.random.default_rng(seed)
    reqs = shared_prefix_requests(40, int(rng.integers(8, 40)), prefixes=3, gap_ms=1.0,
                                  suffix_len=(1, 12), output_len=(1, 20), seed=seed)
    cfg = SchedulerConfig(max_seqs=int(rng.integers(2, 9)), block_size=4,
                          max_tokens_per_step=int(rng.integers(8, 64)),
                          kv_budget_tokens=int(rng.integers(80, 240)), admission=admission,
                          prefix_caching=True)
    res = simulate_steps(reqs, cfg, cost=COST)
    assert [len(s.output) for s in res.sequences] == [r.output_len for r in reqs]
    assert res.peak_kv_blocks <= res.num_blocks
    assert all(st.kv_blocks <= res.num_blocks and st.tokens <= cfg.max_tokens_per_step
               for st in res.steps)
    assert res.prefix_hit_tokens > 0


def test_a_shared_prompt_halves_the_tokens_fed():
    reqs = shared_prefix_requests(32, 96, suffix_len=(4, 16), output_len=(4, 12), gap_ms=5.0)
    fed = {}
    for on in (False, True):
        res = simulate_steps(reqs, SchedulerConfig(max_seqs=8, prefix_caching=on), cost=COST)
        fed[on] = sum(st.tokens for st in res.steps)
    assert fed[True] <= 0.5 * fed[False], fed


def test_reference_counts_match_the_holders_at_every_step():
    from collections import Counter

    from labsupport.decoder import Engine
    from labsupport.decoder.stepsim import CostRunner
    reqs = shared_prefix_requests(30, 20, prefixes=2, suffix_len=(1, 9), output_len=(1, 16),
                                  gap_ms=1.0, seed=9)
    eng = Engine(CostRunner(COST), SchedulerConfig(max_seqs=5, block_size=4, kv_budget_tokens=96,
                                                   admission="on_demand", prefix_caching=True),
                 clock="model")
    for r in reqs:
        eng.add(r.payload, r.output_len, arrival=r.arrival, id=r.id)
    kv = eng.sched.kv
    while eng.has_work():
        eng.step()
        held = Counter(b for s in eng.sched.running for b in s.block_table)
        assert [kv.ref[b] for b in range(kv.num_blocks)] == [held[b] for b in range(kv.num_blocks)]
        assert not set(held) & (set(kv._free) | set(kv._evictable)), "a held block is free"
        assert kv.used_blocks == len(held) <= kv.num_blocks
    assert kv.hit_tokens > 0 and kv.evictions > 0


def test_the_rules_are_plain_functions():
    from collections import OrderedDict, deque

    from labsupport.decoder.kvcache import block_names, cached_prefix, release
    names = block_names(list(range(10)), 4)           # two full blocks, chained
    assert names == [block_hash(None, [0, 1, 2, 3]), block_hash(names[0], [4, 5, 6, 7])]
    by_name = {names[0]: 7, names[1]: 3}
    assert cached_prefix(list(range(10)), 4, by_name) == [7, 3]
    assert cached_prefix(list(range(8)), 4, by_name) == [7]   # one token must stay uncached
    ref, lru, free = [0, 1, 2, 1], OrderedDict({0: None}), deque()
    release([1, 2, 3], ref, {1, 3}, lru, free)
    assert ref == [0, 0, 1, 0] and list(lru) == [0, 3, 1] and list(free) == []


def test_a_lookup_that_returns_other_blocks_is_refused():
    kv = BlockManager(8, block_size=4, prefix_caching=True)
    a = DecodeSequence(0, list(range(10)), 5)
    _computed(kv, a, 10)
    kv.lookup_fn = lambda tokens, bs, by_name: [a.block_table[1]]   # the wrong block
    with pytest.raises(ValueError, match="not the cached blocks"):
        kv.prefix_hits(DecodeSequence(1, list(range(9)), 2))
