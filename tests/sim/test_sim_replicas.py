"""The replica simulator (virtual clock, deterministic), and notebook 07's replica lesson
against M/G/c theory."""
from __future__ import annotations

import numpy as np
import pytest

from labsupport.costs import ServiceModel
from labsupport.serving.demo import replica_lesson as rl
from labsupport.sim.simulator import simulate, simulate_replicas
from labsupport.traffic import bursty, poisson


def test_one_replica_is_exactly_the_single_server_simulator():
    traffic = bursty(900, 3000, burstiness=4, seed=7, lengths=[8, 32, 64])
    svc = ServiceModel(5.0, 0.2, 0.01)
    one = simulate_replicas(traffic, 1, "p2c", service=svc, max_batch=16, max_delay_ms=3)
    ref = simulate(traffic, "work_conserving", svc, max_batch=16, max_delay_ms=3)
    np.testing.assert_allclose(one.latency, ref.latency)
    assert (one.replica == 0).all() and one.batch_size.tolist() == ref.batch_size.tolist()


def test_each_replica_reports_its_batches_to_its_policy():
    """The replica simulator runs the one loop, ``observe`` included: each replica's
    ``adaptive`` policy refits from its own batches (the real costs, not the toy model it
    starts from), which changes the batches it forms; without refitting they differ."""
    truth = ServiceModel(12.0, 1.0)  # the policy starts from the toy 5 ms + 0.2 ms guess
    traffic = poisson(300, 3000, seed=4)
    runs = [simulate_replicas(traffic, 2, "least_outstanding", policy="adaptive",
                              service=truth, slo_p99_ms=60.0, max_batch=16, **kw)
            for kw in ({}, {"refit_every": 0})]
    assert runs[0].batch_size.tolist() != runs[1].batch_size.tolist()
    assert np.mean(runs[0].latency > 60.0) < 0.01
    assert set(np.unique(runs[0].batch_replica)) == {0, 1}


def test_a_policy_object_cannot_be_shared_by_replicas():
    from labsupport.batching.registry import make_policy
    with pytest.raises(ValueError, match="policy must be a name"):
        simulate_replicas(poisson(10, 10), 2, policy=make_policy("early"))


@pytest.mark.parametrize("routing", ["round_robin", "least_outstanding", "p2c"])
def test_every_request_finishes_once_after_its_service(routing):
    traffic = poisson(1500, 4000, seed=2, lengths=[8, 64])
    svc = ServiceModel(5.0, 0.2)
    out = simulate_replicas(traffic, 3, routing, service=svc, max_batch=32)
    assert np.all(np.isfinite(out.finish))
    assert np.all(out.latency >= svc.cost(1) - 1e-9)
    assert out.batch_size.sum() == len(traffic)
    counts = np.bincount(out.replica, minlength=3)
    if routing == "round_robin":
        assert counts.tolist() == [1334, 1333, 1333]
    assert counts.min() > 0


def test_least_outstanding_beats_round_robin_and_nears_the_shared_queue():
    rows = rl.theory_vs_sim(servers=(4,), loads=(0.7,), n=6000)
    r = rows[0]
    assert r["least_outstanding_wait_ms"] < r["round_robin_wait_ms"]
    assert r["least_outstanding_wait_ms"] == pytest.approx(r["theory_wait_ms"], rel=0.5)
