"""The SLO-aware ``adaptive`` policy on the virtual clock: it dispatches at the oldest
request's deadline minus the predicted service time, at once when full or late."""
import asyncio
import json

import numpy as np
import pytest

from labsupport import BatchConfig, MicroBatcher, ServiceModel, make_policy, simulate
from labsupport.batching.adaptive import Adaptive, dispatch_at, latest_start
from labsupport.costs import fake_model
from labsupport.sim.vclock import run
from labsupport.traffic import Request, bursty

TOY = ServiceModel(5.0, 0.2)


def test_lone_request_goes_at_deadline_minus_predicted_service():
    res = simulate([Request(0, 0.0)], Adaptive(slo_p99_ms=50.0, refit_every=0, amortize=False),
                   TOY)
    # latest start = 0 + 50 - cost(1) (5.2) - margin (one more item, 0.2) = 44.6
    assert res.start[0] == pytest.approx(44.6)
    assert res.latency[0] == pytest.approx(49.8) and res.latency[0] <= 50.0


def test_two_requests_go_at_the_oldest_deadline_for_a_batch_of_two():
    res = simulate([Request(0, 0.0), Request(1, 10.0)],
                   Adaptive(slo_p99_ms=50.0, refit_every=0, amortize=False), TOY)
    assert list(res.batch_of) == [0, 0]
    assert res.start[0] == pytest.approx(50.0 - TOY.cost(2) - 0.2)


def test_amortize_waits_at_most_one_predicted_run_time():
    res = simulate([Request(0, 0.0), Request(1, 2.0), Request(2, 30.0)],
                   Adaptive(slo_p99_ms=50.0, refit_every=0), TOY)
    # the first two go at 0 + cost(2) = 5.4 (not at the SLO's 44.4); the third alone later
    assert res.start.tolist()[:2] == pytest.approx([5.4, 5.4])
    assert res.start[2] == pytest.approx(30.0 + TOY.cost(1))


def test_late_requests_ride_along_behind_live_ones_never_ahead():
    slow = ServiceModel(20.0, 0.0)
    # busy 0-20 with 0,1 and 20-40 with 2,3; at 40, 4 and 5 are late (they would finish at
    # 60 > 21 + 30), 6 can still make it: 6 goes first, 4 rides along, 5 waits
    arrivals = [0.0, 0.0, 1.0, 2.0, 21.0, 22.0, 35.0]
    reqs = [Request(k, a) for k, a in enumerate(arrivals)]
    res = simulate(reqs, Adaptive(slo_p99_ms=30.0, max_batch=2, service=slow, refit_every=0),
                   slow)
    assert res.start[6] == 40.0 and res.latency[6] <= 30.0
    assert res.batch_of[4] == res.batch_of[6] and res.start[5] == 60.0
    fifo = simulate(reqs, Adaptive(slo_p99_ms=30.0, max_batch=2, service=slow, refit_every=0,
                                   amortize=False), slow)
    assert fifo.latency[6] <= 30.0  # the rule, not amortize, puts the live one first


def test_full_batch_goes_at_once():
    reqs = [Request(k, float(k)) for k in range(4)]
    res = simulate(reqs, Adaptive(slo_p99_ms=500.0, max_batch=4, refit_every=0), TOY)
    assert res.start.tolist() == [3.0] * 4


def test_late_request_goes_at_once_and_the_next_when_the_executor_frees():
    slow = ServiceModel(20.0, 0.0)
    reqs = [Request(0, 0.0), Request(1, 1.0)]
    res = simulate(reqs, Adaptive(slo_p99_ms=10.0, service=slow, refit_every=0), slow)
    assert res.start.tolist() == [0.0, 20.0]  # cannot meet 10 ms: waiting would not help


def test_runtime_lone_request_latency_on_the_virtual_clock():
    async def main():
        cfg = BatchConfig(slo_p99_ms=40.0)
        async with MicroBatcher(fake_model(TOY, asynchronous=True), cfg,
                                policy=Adaptive(cfg, refit_every=0, amortize=False)) as mb:
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            await mb.submit(1)
            return (loop.time() - t0) * 1000.0
    assert run(main(), timeout=30) == pytest.approx(40.0 - 0.2, abs=1e-6)


def test_online_refit_learns_the_machine():
    truth = ServiceModel(8.0, 0.5)
    policy = Adaptive(slo_p99_ms=60.0, service=ServiceModel(1.0, 0.0), refit_every=8)
    simulate(bursty(800, 600, seed=2), policy, truth)
    # length-1 requests: padded tokens = n, so only the predictions are identifiable
    for n in (1, 4, 16, 32):
        assert policy.service.cost(n, n) == pytest.approx(truth.cost(n), rel=1e-6)


def test_dispatch_at_rule():
    predict = lambda n: TOY.cost(n) + 0.2  # noqa: E731  (a 0.2 ms margin)
    assert latest_start(0.0, 1, 50.0, predict) == pytest.approx(44.6)
    assert dispatch_at(44.0, 0.0, 1, 8, 50.0, predict) == pytest.approx(44.6)  # waits
    assert dispatch_at(0.0, 0.0, 8, 8, 50.0, TOY.cost) == 0.0    # full: now
    assert dispatch_at(99.0, 0.0, 1, 8, 50.0, TOY.cost) == 99.0  # late: now


@pytest.mark.parametrize("bad", [0, -5, 0.01, 60_001, float("nan"), "100", True])
def test_bad_slo_is_rejected_naming_knob_and_range(bad):
    with pytest.raises(ValueError, match=r"slo_p99_ms must be a finite number in \[0.1, 60000.0\]"):
        BatchConfig(slo_p99_ms=bad)
    with pytest.raises(ValueError, match="slo_p99_ms"):
        make_policy("adaptive", slo_p99_ms=bad)


def test_registered_and_bound_to_knobs():
    p = make_policy("adaptive", max_batch=8, slo_p99_ms=30.0)
    assert isinstance(p, Adaptive) and p.cfg.slo_p99_ms == 30.0
    with pytest.raises(ValueError, match="slo_p99_ms"):
        make_policy(p, slo_p99_ms=31.0)


def test_bench_adaptive_quick_prints_the_comparison(capsys):
    from labsupport.benches.adaptive import main
    assert main(["--quick", "--n", "200"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["workloads"]) == {"bursty@0.5", "trace@0.5"}
    for w in out["workloads"].values():
        assert set(w["fixed"]) == {"early", "work_conserving", "window"}
        assert w["best_fixed_policy"] in w["fixed"]
        assert w["adaptive"]["goodput_rps"] > 0 and 0 <= w["adaptive"]["met_share"] <= 1
        assert w["adaptive_vs_best_fixed"] > 0 and w["adaptive_vs_window_best"] > 0
    assert set(out["met"]) == set(out["goals"]) and out["load_avg"]


def test_bench_adaptive_rejects_bad_loads(capsys):
    from labsupport.benches.adaptive import main
    with pytest.raises(SystemExit):
        main(["--quick", "--loads", "0"])
    assert "--loads" in capsys.readouterr().err


def test_a_long_request_that_costs_more_inside_the_batch_than_alone_does_not_join():
    tokens = ServiceModel(1.0, 0.0, 1.0)  # the padded-token cost dominates
    reqs = [Request(0, 0.0, 2), Request(1, 0.5, 50), Request(2, 0.6, 3)]
    res = simulate(reqs, Adaptive(slo_p99_ms=500.0, service=tokens, refit_every=0), tokens)
    # together 0 and 1 would run 1 + 2·50 = 101 ms; apart 3 + 51: the batch closes before 1
    assert res.batch_of[0] != res.batch_of[1] and res.start[0] == 0.5  # closed: goes at once
    fifo = simulate(reqs, "early", tokens, max_batch=32, max_delay_ms=1.0)
    assert fifo.batch_of[0] == fifo.batch_of[1]  # a plain FIFO batch would have padded to 50
