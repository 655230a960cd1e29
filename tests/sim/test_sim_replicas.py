"""The replica simulator (virtual clock, deterministic), and notebook 07's replica lesson
against M/G/c theory."""
from __future__ import annotations

import numpy as np
import pytest

from labsupport.costs import ServiceModel
from labsupport.serving.demo import replica_lesson as rl
from labsupport.sim.replicas import simulate_replicas
from labsupport.sim.simulator import simulate
from labsupport.traffic import bursty, poisson


def test_one_replica_is_exactly_the_single_server_simulator():
    traffic = bursty(900, 3000, burstiness=4, seed=7, lengths=[8, 32, 64])
    svc = ServiceModel(5.0, 0.2, 0.01)
    one = simulate_replicas(traffic, 1, "p2c", service=svc, max_batch=16, max_delay_ms=3)
    ref = simulate(traffic, "work_conserving", svc, max_batch=16, max_delay_ms=3)
    order = np.argsort([r.arrival for r in traffic], kind="stable")
    np.testing.assert_allclose(one["latency"], ref.latency[order])


@pytest.mark.parametrize("routing", ["round_robin", "least_outstanding", "p2c"])
def test_every_request_finishes_once_after_its_service(routing):
    traffic = poisson(1500, 4000, seed=2, lengths=[8, 64])
    svc = ServiceModel(5.0, 0.2)
    out = simulate_replicas(traffic, 3, routing, service=svc, max_batch=32)
    assert np.all(np.isfinite(out["finish"]))
    assert np.all(out["latency"] >= svc.cost(1) - 1e-9)
    assert out["batch_size"].sum() == len(traffic)
    counts = np.bincount(out["replica"], minlength=3)
    if routing == "round_robin":
        assert counts.tolist() == [1334, 1333, 1333]
    assert counts.min() > 0


def test_least_outstanding_beats_round_robin_and_nears_the_shared_queue():
    rows = rl.theory_vs_sim(servers=(4,), loads=(0.7,), n=6000)
    r = rows[0]
    assert r["least_outstanding_wait_ms"] < r["round_robin_wait_ms"]
    assert r["least_outstanding_wait_ms"] == pytest.approx(r["theory_wait_ms"], rel=0.5)
