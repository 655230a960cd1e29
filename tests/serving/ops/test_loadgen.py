"""The load generator against the service on loopback: normal load, 10× overload, refusal
of non-loopback URLs. Bounded: each run is a few seconds and a few hundred requests."""
import asyncio
import json

import pytest

from labsupport.serving.ops import loadgen

from svc_helpers import CAPACITY_RPS, MAX_QUEUE, service  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(90)


def counters(svc) -> dict:
    return svc.metrics()


@pytest.mark.parametrize("url", ["http://example.com:8000", "http://10.0.0.7:80",
                                 "http://192.168.1.2", "ftp://127.0.0.1", "127.0.0.1:8000"])
def test_refuses_non_loopback_urls(url):
    with pytest.raises(ValueError, match="loopback|http://127.0.0.1"):
        loadgen.check_loopback(url)
    assert loadgen.main(["--url", url, "--n", "1", "--quiet"]) == 2


@pytest.mark.parametrize("url", ["http://127.0.0.1:1", "http://localhost:2", "http://[::1]:3",
                                 "http://127.0.0.9:4/"])
def test_accepts_loopback_urls(url):
    assert loadgen.check_loopback(url) == url.rstrip("/")


@pytest.mark.parametrize("pattern", ["poisson", "bursty", "trace"])
def test_schedules_are_bounded_and_seeded(pattern):
    a = loadgen.schedule(pattern, 100.0, 200, seed=3)
    b = loadgen.schedule(pattern, 100.0, 200, seed=3)
    assert [r.arrival for r in a] == [r.arrival for r in b] and len(a) == 200
    assert all(8 <= r.length <= 64 for r in a)
    span_s = (a[-1].arrival - a[0].arrival) / 1000
    assert 0.5 < 199 / span_s / 100.0 < 2.0  # mean rate near the asked 100/s


def test_cli_load_at_half_capacity_all_ok(service, tmp_path):
    ok_before = counters(service)['lab_requests_total{outcome="ok"}']
    out = tmp_path / "summary.json"
    rc = loadgen.main(["--url", service.url, "--pattern", "poisson", "--rate",
                       str(CAPACITY_RPS / 2), "--n", "60", "--duration", "10", "--quiet",
                       "--json", str(out)])
    s = json.loads(out.read_text())
    assert rc == 0 and s["sent"] == s["ok"] == 60 and s["errors"] == s["rejected"] == 0
    assert 40 <= s["latency_ms"]["p50"] <= s["latency_ms"]["p99"] < 1000
    assert counters(service)['lab_requests_total{outcome="ok"}'] - ok_before == 60


def test_overload_10x_rejects_fast_bounded_and_loses_nothing(service):
    """10× capacity for 2 s: fast 429s, accepted requests all answered, queue (and so
    latency and memory) bounded by max_queue; afterwards the service serves normally."""
    before = counters(service)
    reqs = loadgen.schedule("poisson", 10 * CAPACITY_RPS, int(20 * CAPACITY_RPS), seed=1)
    res = asyncio.run(loadgen.run_load(service.url, reqs, max_duration_s=2.0, timeout_s=30))
    s = res.summary()
    after = counters(service)
    print("overload:", json.dumps(s))
    assert s["errors"] == 0 and s["ok"] + s["rejected"] == s["sent"] > 0
    assert s["rejected"] > s["sent"] / 2  # most of a 10× overload must be turned away
    delta = {k: after[k] - before.get(k, 0) for k in after}
    assert delta['lab_requests_total{outcome="ok"}'] == s["ok"]  # no accepted request lost
    assert delta['lab_requests_total{outcome="rejected"}'] == s["rejected"]
    # an accepted request waits at most a full queue ahead of it: max_queue / capacity
    bound_ms = 1000.0 * MAX_QUEUE / CAPACITY_RPS
    assert s["latency_ms"]["p99"] < 2 * bound_ms + 500, s["latency_ms"]
    server_reject_ms = delta["lab_rejection_latency_ms_sum"] / delta[
        "lab_rejection_latency_ms_count"]
    assert server_reject_ms < 5.0  # the server decides a 429 at once
    assert after["lab_resident_memory_bytes"] - before["lab_resident_memory_bytes"] < 64e6
    assert after["lab_queue_depth"] == 0
    r = asyncio.run(loadgen.run_load(service.url, loadgen.schedule("poisson", 20, 10)))
    assert r.summary()["ok"] == 10  # and it keeps serving
