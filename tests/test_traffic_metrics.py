"""Arrival processes, traces and metrics."""
import numpy as np
import pytest

from labsupport import find_knee, percentiles, summarize, simulate
from labsupport.paths import AZURE_CONV, SYNTHETIC_TRACE
from labsupport.traffic import bursty, load_trace, poisson, replay, synthetic_trace


def test_poisson_is_seeded_and_has_its_rate():
    a, b = poisson(200, 20_000, seed=5), poisson(200, 20_000, seed=5)
    assert [r.arrival for r in a] == [r.arrival for r in b]
    assert 20_000 / (a[-1].arrival / 1000) == pytest.approx(200, rel=0.03)
    assert [r.arrival for r in poisson(200, 10, seed=6)] != [r.arrival for r in a[:10]]


def test_bursty_keeps_the_mean_rate_but_clumps():
    def cv_counts(reqs, bin_ms=50):
        t = np.array([r.arrival for r in reqs])
        c = np.bincount((t // bin_ms).astype(int))
        return c.std() / c.mean(), len(reqs) / (t[-1] / 1000)
    cv_b, rate_b = cv_counts(bursty(500, 20_000, burstiness=8, seed=1))
    cv_p, rate_p = cv_counts(bursty(500, 20_000, burstiness=1, seed=1))
    assert rate_b == pytest.approx(500, rel=0.1) and rate_p == pytest.approx(500, rel=0.05)
    assert cv_b > 2 * cv_p


@pytest.mark.parametrize("kw,name", [({"rate_per_s": 0}, "rate_per_s"),
                                     ({"burstiness": 0.5}, "burstiness"),
                                     ({"n": -1}, "n")])
def test_bad_traffic_args(kw, name):
    args = {"rate_per_s": 10, "n": 5, **kw}
    with pytest.raises(ValueError, match=name):
        bursty(**args)


def test_synthetic_trace_file_matches_its_generator(tmp_path):
    from labsupport.traffic import write_trace
    write_trace(synthetic_trace(), tmp_path / "fresh.csv")  # python -m labsupport.traffic
    assert (tmp_path / "fresh.csv").read_bytes() == SYNTHETIC_TRACE.read_bytes()
    shipped = load_trace(SYNTHETIC_TRACE)
    fresh = synthetic_trace()
    assert np.allclose(shipped.arrival_ms, fresh.arrival_ms, atol=1e-3)
    assert (shipped.context_tokens == fresh.context_tokens).all()
    assert 3 < shipped.rate_per_s < 9  # the real trace runs at ~5.5 req/s


@pytest.mark.skipif(not AZURE_CONV.exists(), reason="real Azure trace not in ../shared/data")
def test_real_trace_loads_and_replays():
    tr = load_trace(AZURE_CONV)
    assert len(tr) > 19_000 and (np.diff(tr.arrival_ms) >= 0).all()
    reqs = replay(tr, n=100, rate_scale=10, length_scale=0.1, max_length=256)
    span = reqs[-1].arrival
    assert span == pytest.approx(tr.arrival_ms[99] / 10)
    assert max(r.length for r in reqs) <= 256 and min(r.length for r in reqs) >= 1


def test_percentiles_and_summary():
    x = np.arange(1, 101, dtype=float)
    p = percentiles(x)
    assert p["p50"] == pytest.approx(50.5) and p["p99"] == pytest.approx(99.01)
    res = simulate(poisson(100, 500, seed=2), "work_conserving", max_batch=8)
    s = summarize(res, slo_ms=50)
    assert 0 < s["utilisation"] < 1 and s["requests"] == 500 and 0 <= s["slo_met"] <= 1
    assert s["p99_ms"] >= s["p50_ms"] > 0


def test_find_knee_on_a_hockey_stick():
    x = np.linspace(0, 10, 41)
    y = np.where(x < 4, 100 - 24 * x, 4 + 0.5 * (x - 4))
    assert x[find_knee(x, y)] == pytest.approx(4, abs=0.3)
