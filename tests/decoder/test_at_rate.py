"""``workload.at_rate``: a trace replayed at a rate given in requests/s (or as a backlog)."""
import math

import numpy as np
import pytest

from labsupport.decoder.metrics import summarize_decode
from labsupport.decoder.stepsim import StepCost, simulate_steps
from labsupport.decoder.workload import at_rate, trace_requests
from labsupport.traffic import Request


def test_mean_rate_and_shape_of_the_gaps():
    reqs = [Request(i, a, 3, 2) for i, a in enumerate([5.0, 6.0, 8.0, 13.0, 15.0])]
    out = at_rate(reqs, 200.0)  # 4 gaps in 20 ms at 200 req/s
    t = [r.arrival for r in out]
    assert t[0] == 0.0 and math.isclose(t[-1], 20.0)
    assert np.allclose(np.diff(t), np.diff([5.0, 6.0, 8.0, 13.0, 15.0]) * 2.0)
    assert [(r.id, r.length, r.output_len) for r in out] == [(r.id, r.length, r.output_len) for r in reqs]
    assert [r.arrival for r in reqs] == [5.0, 6.0, 8.0, 13.0, 15.0]  # the input is not touched


def test_a_trace_at_half_the_rate_takes_twice_as_long():
    reqs = trace_requests(30, seed=3)
    fast, slow = at_rate(reqs, 40.0), at_rate(reqs, 20.0)
    assert math.isclose(slow[-1].arrival, 2 * fast[-1].arrival)
    assert math.isclose((len(reqs) - 1) / (fast[-1].arrival / 1000.0), 40.0)


def test_inf_is_a_backlog_and_a_backlog_measures_what_the_engine_sustains():
    reqs = trace_requests(40, seed=1)
    backlog = at_rate(reqs, math.inf)
    assert all(r.arrival == 0.0 for r in backlog)
    cost = StepCost(fixed_ms=1.0, per_seq_ms=0.1, per_token_ms=0.01, per_kv_ms=0.0)
    cap = summarize_decode(simulate_steps(backlog, cost=cost, max_seqs=8))["requests_per_s"]
    # offered at 1/4 of that, the engine keeps up: requests/s ≈ the offered rate, not the capacity
    light = summarize_decode(simulate_steps(at_rate(reqs, cap / 4), cost=cost, max_seqs=8))
    assert light["requests_per_s"] < cap / 2


def test_deadlines_keep_their_distance_from_arrival():
    reqs = [Request(0, 10.0, deadline=60.0), Request(1, 20.0), Request(2, 30.0, deadline=35.0)]
    out = at_rate(reqs, 100.0)
    assert out[0].deadline == out[0].arrival + 50.0
    assert out[1].deadline is None
    assert math.isclose(out[2].deadline, out[2].arrival + 5.0)


@pytest.mark.parametrize("rate", [0.0, -5.0, -math.inf, math.nan, "10", True])
def test_a_bad_rate_names_the_parameter_and_the_range(rate):
    with pytest.raises(ValueError, match=r"rate_per_s must be a finite number > 0"):
        at_rate(trace_requests(5, seed=0), rate)


@pytest.mark.parametrize("reqs", [[], [Request(0, 1.0)], [Request(0, 4.0), Request(1, 4.0)]])
def test_too_few_distinct_arrivals_name_reqs(reqs):
    with pytest.raises(ValueError, match=r"reqs must hold at least two requests"):
        at_rate(reqs, 10.0)
