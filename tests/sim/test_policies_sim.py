"""Simulator × policies: invariants over random traffic (hypothesis), on the virtual clock."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from labsupport import BatchConfig, ServiceModel, make_policy, simulate
from labsupport.traffic import ClosedLoop, Request, bursty, poisson

POLICY_NAMES = ["naive", "window", "early", "work_conserving"]
EPS = 1e-6

traffic = st.lists(st.tuples(st.floats(0, 200, allow_nan=False), st.integers(1, 64)),
                   min_size=1, max_size=60)


def as_requests(pairs):
    return [Request(i, a, l) for i, (a, l) in enumerate(pairs)]


@settings(max_examples=60, deadline=None)
@given(pairs=traffic, policy=st.sampled_from(POLICY_NAMES), max_batch=st.integers(1, 16),
       delay=st.floats(0, 30), fixed=st.floats(0.1, 10), per_item=st.floats(0, 2))
def test_invariants(pairs, policy, max_batch, delay, fixed, per_item):
    reqs = as_requests(pairs)
    res = simulate(reqs, policy, ServiceModel(fixed, per_item), max_batch=max_batch,
                   max_delay_ms=delay)
    n = len(reqs)
    # no request lost or duplicated: each sits in exactly one batch, sizes add up
    assert not np.isnan(res.finish).any()
    assert np.bincount(res.batch_of, minlength=len(res.batch_size)).tolist() == \
        res.batch_size.tolist()
    assert res.batch_size.sum() == n
    assert (res.batch_size <= max_batch).all() and (res.batch_size >= 1).all()
    assert (res.start >= res.arrival - EPS).all()
    # one executor: batches never overlap
    assert (res.batch_start[1:] >= res.batch_end[:-1] - EPS).all()
    if policy in ("naive", "work_conserving"):
        # work-conserving: never idle while a request waits
        assert (res.window_wait <= EPS).all(), res.window_wait.max()
    if policy == "early":
        # the window is measured from the oldest arrival: never more than max_delay
        assert (res.window_wait <= delay + EPS).all()
    if policy == "window":
        # the lesson's timer restarts for leftovers: each batch goes one window after the
        # later of its oldest member's arrival and the previous dispatch (or, if the
        # executor is still busy then, when it frees) — so leftovers can wait many windows
        oldest = np.array([res.arrival[res.batch_of == b].min()
                           for b in range(len(res.batch_start))])
        prev_start = np.concatenate([[-np.inf], res.batch_start[:-1]])
        prev_end = np.concatenate([[-np.inf], res.batch_end[:-1]])
        due = np.maximum(prev_end, np.maximum(oldest, prev_start) + delay)
        assert (res.batch_start <= due + EPS).all()
    if policy == "naive":
        assert (res.batch_size == 1).all()


@pytest.mark.parametrize("policy", POLICY_NAMES)
def test_deterministic_under_seed(policy):
    a = simulate(bursty(800, 2000, seed=3), policy, max_batch=8, max_delay_ms=4)
    b = simulate(bursty(800, 2000, seed=3), policy, max_batch=8, max_delay_ms=4)
    assert np.array_equal(a.finish, b.finish) and np.array_equal(a.batch_size, b.batch_size)


def test_lone_request_latency_shows_the_window_flaw():
    lone = [Request(0, 100.0)]
    svc = ServiceModel(5.0, 0.2)
    lat = {p: simulate(lone, p, svc, max_batch=32, max_delay_ms=20).latency[0]
           for p in POLICY_NAMES}
    assert lat["window"] == pytest.approx(25.2) and lat["early"] == pytest.approx(25.2)
    assert lat["work_conserving"] == pytest.approx(5.2) and lat["naive"] == pytest.approx(5.2)


def test_full_batch_waits_only_under_window():
    burst = [Request(i, 10.0) for i in range(8)]
    w = simulate(burst, "window", max_batch=8, max_delay_ms=20)
    e = simulate(burst, "early", max_batch=8, max_delay_ms=20)
    assert w.batch_start[0] == pytest.approx(30.0)
    assert e.batch_start[0] == pytest.approx(10.0)


def test_token_budget_caps_padded_tokens():
    reqs = [Request(i, 0.0, length) for i, length in enumerate([10, 40, 12, 60, 8, 30])]
    res = simulate(reqs, "work_conserving", max_batch=6, max_delay_ms=0, max_tokens=100)
    assert (res.batch_padded <= 100).all()
    assert res.batch_size.sum() == 6


def test_closed_loop_issues_exactly_n():
    res = simulate(ClosedLoop(clients=5, n=57, think_ms=2.0), "work_conserving",
                   max_batch=4, max_delay_ms=1)
    assert len(res.finish) == 57 and res.batch_size.sum() == 57
    assert (res.batch_size <= 4).all()


def test_saturation_throughput_near_ideal_in_sim():
    svc = ServiceModel(5.0, 0.2)
    res = simulate(poisson(5000, 20_000, seed=0), "work_conserving", svc, max_batch=32)
    busy = res.batch_end[-1] - res.batch_start[0]
    assert 1000 * 20_000 / busy == pytest.approx(svc.capacity(32), rel=0.02)


def test_waits_split_into_window_and_executor():
    reqs = [Request(0, 0.0), Request(1, 1.0)]
    res = simulate(reqs, "work_conserving", ServiceModel(10.0, 0.0), max_batch=4)
    # request 1 arrives while request 0 runs: all of its wait is for the executor
    assert res.executor_wait[1] == pytest.approx(9.0) and res.window_wait[1] == pytest.approx(0)


@pytest.mark.parametrize("bad,name", [(dict(max_batch=0), "max_batch"),
                                      (dict(max_batch=2.5), "max_batch"),
                                      (dict(max_delay_ms=-1), "max_delay_ms"),
                                      (dict(max_delay_ms=float("nan")), "max_delay_ms"),
                                      (dict(max_queue=0), "max_queue"),
                                      (dict(max_tokens=0), "max_tokens")])
def test_bad_knobs_name_the_parameter(bad, name):
    with pytest.raises(ValueError, match=name):
        BatchConfig(**bad)


def test_unknown_policy_lists_choices():
    with pytest.raises(ValueError, match="work_conserving"):
        make_policy("fastest")


def test_service_model_fit_recovers_coefficients():
    true = ServiceModel(4.0, 0.5, 0.01)
    sizes = np.array([1, 2, 4, 8, 16, 32, 4, 8])
    tokens = sizes * np.array([16, 32, 16, 64, 16, 32, 128, 8])
    times = [true.cost(n, t) for n, t in zip(sizes, tokens)]
    fit = ServiceModel.fit(sizes, tokens, times)
    assert fit.fixed_ms == pytest.approx(4.0, abs=1e-6)
    assert fit.per_item_ms == pytest.approx(0.5, abs=1e-6)
    assert fit.per_token_ms == pytest.approx(0.01, abs=1e-8)
