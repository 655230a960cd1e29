"""Queueing formulas (M/G/1 and M/G/c): known values, units, overload, bad input, and
agreement with the simulator."""
import math

import numpy as np
import pytest

from labsupport import ServiceModel, poisson, simulate
from labsupport import queueing as q


def test_known_values():
    assert q.offered_load(50, 10) == pytest.approx(0.5)
    assert q.md1_wait_ms(50, 10) == pytest.approx(5.0)        # ρS / (2(1-ρ)) = 0.5·10/1
    assert q.mg1_wait_ms(50, 10, cv2=1.0) == pytest.approx(10.0)    # M/M/1: twice M/D/1
    assert q.mg1_wait_ms(50, 10, cv2=0.5) == pytest.approx(7.5)
    assert q.mean_latency_ms(50, 10) == pytest.approx(15.0)
    assert q.capacity_per_s(8) == pytest.approx(125.0)


def test_overload_is_infinite():
    assert math.isinf(q.md1_wait_ms(100, 10))
    assert math.isinf(q.mg1_wait_ms(300, 10, cv2=1.0))
    curve = q.latency_curve([10, 50, 99, 100, 150], 10)
    assert np.all(np.diff(curve[:3]) > 0) and np.all(np.isinf(curve[3:]))


@pytest.mark.parametrize("call, name", [
    (lambda: q.md1_wait_ms(-1, 10), "rate_per_s"),
    (lambda: q.md1_wait_ms(10, 0), "service_ms"),
    (lambda: q.mg1_wait_ms(10, 5, cv2=float("nan")), "cv2"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_simulated_naive_queue_matches_md1(rho):
    service_ms = 10.0
    rate = rho * q.capacity_per_s(service_ms)
    res = simulate(poisson(rate, 40000, seed=5), "naive", ServiceModel(service_ms, 0.0))
    wait = np.mean(res.start - res.arrival)
    assert wait == pytest.approx(q.md1_wait_ms(rate, service_ms), rel=0.08)


def test_erlang_c_matches_hand_values():
    assert q.erlang_c(1, 0.6) == pytest.approx(0.6)        # M/M/1: P(wait) = ρ
    assert q.erlang_c(2, 1.0) == pytest.approx(1 / 3)      # (1/2 · 2) / (1 + 1 + 1)
    assert q.erlang_c(3, 3.0) == 1.0 and q.erlang_c(4, 0.0) == 0.0


@pytest.mark.parametrize("cv2", [0.0, 0.5, 1.0])
def test_one_server_is_pollaczek_khinchine(cv2):
    assert q.mgc_wait_ms(70, 10, 1, cv2) == pytest.approx(q.mg1_wait_ms(70, 10, cv2))


def test_more_servers_wait_less_at_equal_load_and_saturation_is_infinite():
    waits = [q.mgc_wait_ms(0.8 * c * 100, 10, c) for c in (1, 2, 4, 8)]
    assert waits == sorted(waits, reverse=True) and waits[-1] > 0
    assert math.isinf(q.mgc_wait_ms(200, 10, 2))
    with pytest.raises(ValueError, match="servers must be an integer"):
        q.erlang_c(0, 1.0)
    with pytest.raises(ValueError, match="service_ms must be"):
        q.mgc_wait_ms(10, 0, 2)
