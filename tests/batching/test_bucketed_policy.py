"""The bucketed policy in the simulator and the runtime: nothing lost or duplicated, caps
and budgets respected, work-conserving, and no bucket starves."""
import asyncio

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from labsupport import MicroBatcher, ServiceModel, simulate
from labsupport.batching.shapes import bucket_of
from labsupport.costs import fake_model
from labsupport.batching.bucketed import Bucketed
from labsupport.batching.registry import POLICIES, make_policy
from labsupport.traffic import Request, bursty, poisson
from labsupport.sim.vclock import run

EDGES = (16, 32, 64, 128)
MODEL = ServiceModel(4.0, 0.5, 0.02)


def _lengths(n, rng):
    return np.clip(np.round(rng.lognormal(3.5, 1.0, n)), 2, 200).astype(int)


def test_registered_and_configurable():
    assert POLICIES["bucketed"] is Bucketed
    p = make_policy("bucketed", max_batch=8, edges=(10, 20))
    assert p.edges == (10, 20) and p.cfg.max_batch == 8
    with pytest.raises(ValueError, match="edges"):
        Bucketed(edges=(20, 10))


@settings(max_examples=40, deadline=None)
@given(rate=st.floats(20, 2000), max_batch=st.integers(1, 16), seed=st.integers(0, 99),
       budget=st.none() | st.integers(100, 2000), burst=st.booleans(),
       static=st.booleans())
def test_sim_properties(rate, max_batch, seed, budget, burst, static):
    gen = bursty if burst else poisson
    reqs = gen(rate, 150, seed=seed, lengths=_lengths)
    pol = Bucketed(max_batch=max_batch, max_delay_ms=10.0, max_tokens=budget, edges=EDGES,
                   static=static)
    res = simulate(reqs, pol, MODEL)
    assert not np.isnan(res.finish).any()                            # nobody left behind
    assert res.batch_size.sum() == len(reqs)                         # nobody twice
    assert np.bincount(res.batch_of).tolist() == res.batch_size.tolist()
    assert res.batch_size.max() <= max_batch
    for b in range(len(res.batch_size)):
        ls = res.length[res.batch_of == b]
        assert len({min(bucket_of(n, EDGES), len(EDGES)) for n in ls}) == 1  # one bucket
        if budget is not None and len(ls) > 1:
            assert res.batch_padded[b] <= budget
    # work-conserving: no request waits while the executor sits idle
    assert np.all(res.window_wait < 1e-6)


def test_no_bucket_starves():
    """A steady stream of short requests near capacity keeps the short bucket fullest; one
    long request in the middle: once it has waited max_delay_ms its bucket goes next, so it
    waits at most ~delay + one batch."""
    reqs = [Request(i, i * 1.6, 10) for i in range(2000)]
    reqs.append(Request(9999, 100.0, 100))
    res = simulate(reqs, Bucketed(max_batch=8, max_delay_ms=20.0, edges=EDGES), MODEL)
    k = int(np.flatnonzero(res.length == 100)[0])
    one_batch = MODEL.cost(8, 8 * 16)
    assert res.start[k] - res.arrival[k] <= 20.0 + one_batch + 1e-9
    # without aging (an enormous max_delay_ms) the same long request waits far longer
    res2 = simulate(reqs, Bucketed(max_batch=8, max_delay_ms=1e4, edges=EDGES), MODEL)
    k2 = int(np.flatnonzero(res2.length == 100)[0])
    assert res2.start[k2] - res2.arrival[k2] > 10 * (res.start[k] - res.arrival[k])


def test_idle_executor_goes_now_and_bucketing_cuts_padding():
    reqs = poisson(100, 400, seed=3, lengths=_lengths)
    fifo = simulate(reqs, "work_conserving", MODEL, max_batch=16)
    buck = simulate(reqs, "bucketed", MODEL, max_batch=16, edges=EDGES)
    lone = simulate([Request(0, 5.0, 40)], "bucketed", MODEL, max_delay_ms=50.0)
    assert lone.start[0] == 5.0
    share = lambda r: 1 - r.batch_real.sum() / r.batch_padded.sum()
    assert share(buck) < share(fifo) / 2


def test_runtime_serves_every_caller_with_its_own_result():
    seen = []

    def upper(items):
        seen.append([len(x) for x in items])
        return [x.upper() for x in items]
    infer = fake_model(MODEL, upper, length=len, asynchronous=True)  # the lab's one toy model

    texts = ["x" * int(n) for n in _lengths(120, np.random.default_rng(1))]

    async def main():
        pol = Bucketed(max_batch=8, max_delay_ms=5.0, edges=EDGES)
        async with MicroBatcher(infer, max_batch=8, policy=pol, length_fn=len) as mb:
            async def one(i, t):
                await asyncio.sleep(i * 0.0005)
                return await mb.submit(t)
            return await asyncio.gather(*(one(i, t) for i, t in enumerate(texts)))
    assert run(main(), timeout=60) == [t.upper() for t in texts]
    assert sum(map(len, seen)) == len(texts) and max(map(len, seen)) <= 8
    assert all(len({min(bucket_of(n, EDGES), 4) for n in b}) == 1 for b in seen)


def test_static_shapes_count_the_bucket_edge():
    reqs = [Request(0, 0.0, 20), Request(1, 0.0, 30)]
    pol = Bucketed(max_batch=4, edges=EDGES, static=True)
    assert pol.padded_tokens(reqs) == 2 * 32
    assert Bucketed(edges=EDGES).padded_tokens(reqs) == 2 * 30
    assert pol.decide(reqs, 0.0, False).indices == (0, 1)
    # a budget of 63 tokens holds both rows at their longest (60) but not at the edge (64)
    budget_pol = Bucketed(max_batch=4, edges=EDGES, static=True, max_tokens=63)
    assert budget_pol.decide(reqs, 0.0, False).indices == (0,)
    assert Bucketed(max_batch=4, edges=EDGES, max_tokens=63).decide(reqs, 0.0, False).indices \
        == (0, 1)
