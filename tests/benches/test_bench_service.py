"""``labsupport bench service``'s comparison (the bench itself runs AIPerf: not a test)."""
from labsupport.benches.service import AIPERF_HINT, compare


def run(rps, p50, p90, p99, s50, s99):
    return {"throughput_rps": rps, "latency_ms": {"p50": p50, "p90": p90, "p99": p99},
            "scheduled_latency_ms": {"p50": s50, "p90": 0.0, "p99": s99}}


def test_compare_takes_medians_and_flags_figures_outside_the_tolerance():
    lab = [run(40, 10, 20, 30, 11, 33), run(42, 12, 22, 50, 13, 60), run(41, 11, 21, 40, 12, 44)]
    aip = [run(39, 11, 30, 41, 12, 48), run(41, 9, 31, 44, 14, 40), run(40, 10, 29, 80, 13, 45)]
    out = compare(lab, aip, 0.10)
    assert out["median"]["lab"]["p50"] == 11 and out["median"]["aiperf"]["p99"] == 44
    assert out["aiperf_over_lab"]["throughput_rps"] == round(40 / 41, 3)
    assert out["within_tolerance"]["p50"] and out["within_tolerance"]["throughput_rps"]
    assert out["aiperf_over_lab"]["p90"] == round(30 / 21, 3)
    assert not out["within_tolerance"]["p90"]
    assert "make aiperf" in AIPERF_HINT
