"""The replica simulator and M/G/c theory (virtual clock, deterministic)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from labsupport.queueing import mg1_wait_ms
from labsupport.costs import ServiceModel
from labsupport.serving import replica_lesson as rl
from labsupport.serving.replica_sim import erlang_c, mgc_wait_ms, simulate_replicas
from labsupport.sim.simulator import simulate
from labsupport.traffic import bursty, poisson


def test_erlang_c_matches_hand_values():
    assert erlang_c(1, 0.6) == pytest.approx(0.6)        # M/M/1: P(wait) = ρ
    assert erlang_c(2, 1.0) == pytest.approx(1 / 3)      # (1/2 · 2) / (1 + 1 + 1)
    assert erlang_c(3, 3.0) == 1.0 and erlang_c(4, 0.0) == 0.0


@pytest.mark.parametrize("cv2", [0.0, 0.5, 1.0])
def test_one_server_is_pollaczek_khinchine(cv2):
    assert mgc_wait_ms(70, 10, 1, cv2) == pytest.approx(mg1_wait_ms(70, 10, cv2))


def test_more_servers_wait_less_at_equal_load_and_saturation_is_infinite():
    waits = [mgc_wait_ms(0.8 * c * 100, 10, c) for c in (1, 2, 4, 8)]
    assert waits == sorted(waits, reverse=True) and waits[-1] > 0
    assert math.isinf(mgc_wait_ms(200, 10, 2))
    with pytest.raises(ValueError, match="servers must be an integer"):
        erlang_c(0, 1.0)
    with pytest.raises(ValueError, match="service_ms must be"):
        mgc_wait_ms(10, 0, 2)


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
