"""The load generator against the service on loopback: normal load, 10× overload, refusal
of non-loopback URLs. Bounded: each run is a few seconds and a few hundred requests.
What must hold on any machine is tested here; how fast (a 429 decided within 5 ms, the
latency bounds) is ``labsupport bench overload``'s figure."""
import asyncio
import json

import pytest

from labsupport.serving.ops import http_client, loadgen

from svc_helpers import CAPACITY_RPS, FIXED_MS, service  # noqa: F401  (fixture)

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
    assert FIXED_MS <= s["latency_ms"]["p50"] <= s["latency_ms"]["p99"]  # every answer ran the model
    assert counters(service)['lab_requests_total{outcome="ok"}'] - ok_before == 60


def test_overload_10x_rejects_bounded_and_loses_nothing(service):
    """10× capacity for 2 s: most turned away with 429s, accepted requests all answered,
    queue (and so memory) bounded by max_queue; afterwards the service serves normally."""
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
    assert delta["lab_rejection_latency_ms_count"] == s["rejected"]  # each 429 timed by the server
    assert after["lab_resident_memory_bytes"] - before["lab_resident_memory_bytes"] < 64e6
    assert after["lab_queue_depth"] == 0
    r = asyncio.run(loadgen.run_load(service.url, loadgen.schedule("poisson", 20, 10)))
    assert r.summary()["ok"] == 10  # and it keeps serving


def test_closed_loop_keeps_n_in_flight_and_loses_nothing(service):
    """``run_closed``: every request sent once and answered 200; the service never holds
    more than ``concurrency`` texts (its queue stays under max_queue: no 429)."""
    before = counters(service)['lab_requests_total{outcome="ok"}']
    reqs = loadgen.schedule("poisson", 100.0, 40, seed=2)
    res = asyncio.run(loadgen.run_closed(service.url, reqs, 6, timeout_s=30))
    s = res.summary()
    assert s["sent"] == s["ok"] == 40 and s["rejected"] == s["errors"] == 0
    assert counters(service)['lab_requests_total{outcome="ok"}'] - before == 40
    assert s["latency_ms"]["p50"] >= FIXED_MS  # each waited at least one batch


def test_closed_loop_stops_sending_after_its_duration(service):
    reqs = loadgen.schedule("poisson", 100.0, 5000, seed=2)
    res = asyncio.run(loadgen.run_closed(service.url, reqs, 4, duration_s=0.3, timeout_s=30))
    s = res.summary()
    assert 0 < s["sent"] < 5000 and s["sent"] == s["ok"]
    assert 0.3 <= s["wall_s"]


@pytest.mark.parametrize("cut", [1, 10, 30, 47, 60])
def test_response_parser_waits_for_a_whole_response_and_keeps_the_rest(cut):
    """``parse_response`` on bytes split anywhere: None until a response is whole, then
    that response, with what follows (the next response) left in the buffer."""
    one = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
    chunked = (b"HTTP/1.1 429 Too Many\r\nTransfer-Encoding: chunked\r\nConnection: close"
               b"\r\n\r\n3\r\nabc\r\n2;x=1\r\nde\r\n0\r\n\r\n")
    data, buf, got = one + chunked, bytearray(one + chunked)[:cut], []
    for more in (b"", data[cut:]):
        buf += more
        while (r := http_client.parse_response(buf)) is not None:
            got.append(r)
        if not more:
            assert len(got) == (cut >= len(one))  # nothing returned half-read
    assert got == [(200, b"hello", False), (429, b"abcde", True)] and not buf


def test_response_parser_refuses_what_is_not_http():
    with pytest.raises(ValueError, match="status line"):
        http_client.parse_response(bytearray(b"SSH-2.0-OpenSSH\r\n\r\n"))


def test_a_new_rate_retimes_only_what_is_not_due_yet():
    """``Retimed``: send times at the schedule's rate until a change, then at the new one
    from the moment of the change (the wall clock is passed in: no timing here)."""
    offsets = [0.1 * k for k in range(10)]  # 10 req/s
    dues = loadgen.Retimed(100.0, offsets, 10.0)
    assert len(dues) == 10 and [round(dues[k], 6) for k in range(4)] == [100.0, 100.1, 100.2, 100.3]
    dues.set_rate(20.0, now=100.25)  # twice as fast from 100.25 on
    assert dues[2] <= 100.25  # already due: stays due
    assert round(dues[3], 6) == 100.275 and round(dues[4], 6) == 100.325
    dues.set_rate(5.0, now=100.325)  # then slower
    assert round(dues[4], 6) == 100.325 and round(dues[5], 6) == 100.525
    with pytest.raises(ValueError, match="rate"):
        dues.set_rate(0.0)


def test_the_rate_file_retimes_a_running_load(service, tmp_path):
    """A load following a rate file: 2 req/s, then 50 req/s written into the file; the
    one process sends the requests the new rate asks for within its bound."""
    path = tmp_path / "rate"
    path.write_text("2")
    reqs = loadgen.schedule("poisson", 2.0, 400, seed=3)

    async def go():
        async def raise_rate():
            await asyncio.sleep(0.5)
            path.write_text("50")
        asyncio.get_running_loop().create_task(raise_rate())
        return await loadgen.run_load(service.url, reqs, max_duration_s=3.0,
                                      rate_file=str(path))
    res = asyncio.run(go()).summary()
    # at 2 req/s alone, 3 s would send ~6; 2.5 s at 50 req/s sends ~125
    assert res["sent"] > 40 and res["errors"] == 0 and res["not_sent"] == 400 - res["sent"]
