"""``labsupport bench peers``: its protocol parts (in-process load, the SLO bisection, the
goals' verdict and its refusal to compare a system that failed requests, bad input, the
plot, chunked bodies as Ray's proxy sends them) without any peer, and a short smoke run of
each peer when ``make peers`` installed it (else a clean skip)."""
import asyncio
import json

import pytest

from labsupport.batching.runtime import MicroBatcher
from labsupport.benches import peers as bench
from labsupport.benches.peers import venvs
from labsupport.benches.peers.plot import figure, rows, verdict_lines
from labsupport.benches.peers.config import PeersConfig, config_json
from labsupport.benches.peers.run import run, slo_capacity
from labsupport.benches.peers.targets import inprocess_open, triton_body
from labsupport.costs import ServiceModel, fake_model
from labsupport.serving.ops.http_client import HttpClient
from labsupport.serving.ops.loadgen import schedule


def test_peers_are_skipped_with_the_make_target_named(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LAB_PEERS_DIR", str(tmp_path))  # an empty .peers/
    assert set(venvs.missing()) == {"ray_serve", "pytriton"}
    assert bench.main(["--peers", "pytriton,ray_serve", "--out", str(tmp_path / "o")]) == 0
    out = json.loads(capsys.readouterr().out)
    for name in ("pytriton", "ray_serve"):
        assert "make peers" in out["peers"][name]["skipped"]
    assert not (tmp_path / "o" / "peers.png").exists()  # nothing measured: no plot
    with pytest.raises(FileNotFoundError, match="make peers"):
        venvs.start_peer("ray_serve", [])


def test_bad_input_names_the_parameter(capsys):
    assert bench.main(["--peers", "lab_inprocess,vllm"]) == 2
    assert "--peers" in capsys.readouterr().err
    assert bench.main(["--max-batch", "0"]) == 2
    assert "max_batch" in capsys.readouterr().err
    assert bench.main(["--sat-concurrency", "0"]) == 2
    assert "sat_concurrency" in capsys.readouterr().err
    assert bench.main(["--slo-p99-ms", "0"]) == 2  # the one SLO: the batch config's
    assert "slo_p99_ms" in capsys.readouterr().err


def test_in_process_latency_counts_from_the_scheduled_send():
    """A batcher that runs one item at a time (max_batch 1) at 80 req/s offered against
    a 25 ms model (capacity 40/s): requests queue, and each waits for the backlog ahead
    of it, counted from its scheduled send."""
    cfg = PeersConfig(model=ServiceModel(fixed_ms=25.0, per_item_ms=0.0))
    reqs = schedule("poisson", 80.0, 40, seed=3, min_tokens=8, max_tokens=8)

    async def go():
        async with MicroBatcher(fake_model(cfg.model), max_batch=1, max_delay_ms=0.0,
                                max_queue=1000) as mb:
            return await inprocess_open(mb, reqs, 10.0)
    res = asyncio.run(go())
    s = res.summary()
    assert s["ok"] == 40 and s["errors"] == 0
    assert s["latency_ms"]["p50"] >= 25.0  # never below one service time
    # overloaded 2x: the last requests waited for most of the queue ahead of them
    assert s["latency_ms"]["p99"] > 10 * 25.0 * 0.5


def _result(sat, slo, p50, failed=(0, 0, 0, 0)):
    """Bench figures for the four systems: saturation and SLO rates (req/s), light p50."""
    cfg = PeersConfig()
    cpu = {"other_cores": 0.5}
    peers = {n: {"failed": f, "saturation": {"throughput_rps": a, "cpu": cpu,
                                             "fraction_of_ideal": a / cfg.ideal_rps},
                 "slo": {"rate_rps": b, "fraction_of_ideal": b / cfg.ideal_rps,
                         "at_rate": {"cpu": cpu}},
                 "light": {"latency_ms": {"p50": p, "p99": 2 * p}, "cpu": cpu}}
             for n, a, b, p, f in zip(("lab_inprocess", "lab_http", "pytriton", "ray_serve"),
                                      sat, slo, p50, failed)}
    return cfg, peers


def test_verdict_checks_each_goal_against_the_figures():
    cfg, peers = _result((2750, 1500, 1200, 300), (2500, 1000, 1100, 200), (5.4, 6.5, 6.0, 6.2))
    met = bench.verdict(peers, cfg)
    assert met["no_failed_requests"] == {"failed": dict.fromkeys(peers, 0), "met": True}
    assert met["lab_http_over_pytriton_saturation"] == {"ratio": 1.25, "goal": ">= 1.0x",
                                                        "why": None, "met": True}
    assert met["lab_http_over_pytriton_slo"]["ratio"] == 0.91
    assert met["lab_http_over_pytriton_slo"]["met"] is False
    assert met["lab_http_over_ray_serve_saturation"]["ratio"] == 5.0
    assert "met" not in met["lab_http_over_ray_serve_saturation"]  # reported, no goal
    assert met["lab_inprocess_of_ideal"]["met"] is (2750 / cfg.ideal_rps >= 0.97)
    assert met["lab_http_light_p50_ms"] == {"p50": 6.5, "limit": 6.7, "met": True}
    json.dumps(met)  # plain JSON types only
    del peers["pytriton"]
    m = bench.verdict(peers, cfg)["lab_http_over_pytriton_saturation"]
    assert m["ratio"] is None and m["met"] is None and m["why"] == "not measured"


def test_no_ratio_with_a_system_that_failed_requests():
    cfg, peers = _result((2750, 1500, 1200, 30), (2500, 1000, 900, 20), (5.4, 6.5, 6.0, 6.2),
                         failed=(0, 0, 0, 7081))
    met = bench.verdict(peers, cfg)
    assert met["no_failed_requests"]["met"] is False
    ray = met["lab_http_over_ray_serve_saturation"]
    assert ray["ratio"] is None and "ray_serve failed 7081 requests" in ray["why"]
    assert met["lab_http_over_pytriton_slo"]["ratio"] == 1.11  # the others still compare
    lines = "\n".join(verdict_lines({"met": met}))
    assert "no ratio (ray_serve failed 7081 requests" in lines and "1.11x" in lines


class _Steady:
    """A stand-in system that holds the SLO up to ``holds_rps`` (the probe's rate read from
    its schedule), saturating at ``sat_rps``; it records the order it was probed in."""

    def __init__(self, name, sat_rps, holds_rps, log):
        self.name, self.holds_rps, self.log = name, holds_rps, log
        self.figures = {"saturation": {"throughput_rps": sat_rps}}

    async def measure(self, kind, reqs, cfg):
        rate = len(reqs) / cfg.probe_seconds
        self.log.append(self.name)
        ok = rate <= self.holds_rps
        return {"failed": 0, "throughput_rps": rate, "cpu": {"other_cores": 0.1},
                "latency_ms": {"p50": 6.0, "p99": 20.0 if ok else 80.0}}


def test_slo_capacity_bisects_each_system_and_interleaves_their_probes():
    cfg = PeersConfig(probe_seconds=1.0, probe_steps=7)
    log = []
    a, b = _Steady("a", 2000.0, 1300.0, log), _Steady("b", 800.0, 900.0, log)
    asyncio.run(slo_capacity([a, b], cfg))
    assert 1300 - 2000 / 2 ** 7 <= a.figures["slo"]["rate_rps"] <= 1300
    assert 800 - 800 / 2 ** 7 <= b.figures["slo"]["rate_rps"] <= 800  # capped by saturation
    assert log == ["a", "b", "b", "a"] * 3 + ["a", "b"]  # rotating order, one probe each
    assert [p["holds"] for p in a.figures["slo"]["probes"]][:2] == [True, False]


def test_plot_and_rows_have_one_entry_per_measured_system():
    cfg, peers = _result((2750, 1500, 1200, 300), (2500, 1000, 1100, 200), (5.4, 6.5, 6.0, 6.2))
    peers["ray_serve"] = {"skipped": "not installed"}
    res = {"config": config_json(cfg), "peers": peers, "cpus": 2, "loadavg": [1.0, 1, 1]}
    sat, slo, light = figure(res).axes
    assert len(sat.patches) == len(slo.patches) == len(light.patches) == 3
    assert [round(p.get_height() * cfg.ideal_rps) for p in sat.patches] == [2750, 1500, 1200]
    assert [r["peer"] for r in rows(res)] == list(peers)
    assert rows(res)[-1] == {"peer": "ray_serve", "note": "not installed"}


def test_triton_body_is_a_kserve_v2_request():
    r = schedule("poisson", 10.0, 2, seed=0)[1]
    body = json.loads(triton_body(r))
    assert body["inputs"][0]["name"] == "x" and body["inputs"][0]["shape"] == [1, 1]


def test_load_client_reads_chunked_responses_on_a_kept_alive_connection():
    """Ray Serve's proxy answers ``Transfer-Encoding: chunked``: the next response on the
    same connection must still parse (it failed with IndexError before)."""
    async def handle(reader, writer):
        while (line := await reader.readline()):
            length = 0
            while (h := await reader.readline()) != b"\r\n":
                if h.lower().startswith(b"content-length"):
                    length = int(h.split(b":")[1])
            body = await reader.readexactly(length)
            writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                         b"4\r\n{\"a\"\r\n%x\r\n:%s}\r\n0\r\n\r\n" % (len(body) + 2, body))
            await writer.drain()
        writer.close()

    async def go():
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = HttpClient(f"http://127.0.0.1:{port}")
        try:
            out = [await client.request("POST", "/embed", b"%d" % k) for k in (7, 42)]
            assert len(client._idle) == 1  # one kept-alive connection served both
        finally:
            await client.aclose()
            server.close()
        return out
    assert asyncio.run(go()) == [(200, b'{"a":7}'), (200, b'{"a":42}')]


SMOKE = PeersConfig(light_rps=20.0, light_n=10, sat_concurrency=(32,), sat_seconds=0.5,
                    probe_seconds=0.5, probe_steps=2)


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.parametrize("peer", sorted(venvs.VENVS))
def test_peer_smoke_run(peer):
    """A couple of seconds of each peer, through the bench's own protocol."""
    if venvs.peer_python(peer) is None:
        pytest.skip(f"{peer} not installed: `make peers` installs the peers (.peers/)")
    r = asyncio.run(run([peer], SMOKE, {}))[peer]
    assert "error" not in r, r
    light, sat = r["light"], r["saturation"]
    assert light["ok"] == 10 and light["failed"] == 0, r
    assert light["latency_ms"]["p50"] >= SMOKE.model.cost(1)  # a real model ran
    assert sat["ok"] > 0 and 0 < sat["fraction_of_ideal"] <= 1.05
    assert len(r["slo"]["probes"]) == 2
    assert sat["cpu"]["peer_cores"] > 0  # the peer's process tree was found and measured


@pytest.mark.parametrize("gap_s", [0.003, 0.008])  # handed over / lone: woken early, yielded
def test_pace_fires_every_send_never_early(gap_s):
    """Every send fires, none before its time, and ``pace`` returns only after the last
    (how late they are is a figure of ``bench peers``: ``max_send_lag_ms``)."""
    import time

    from labsupport.serving.ops.pacing import pace

    async def go():
        t0 = time.monotonic() + 0.01
        dues = [t0 + gap_s * k + 0.0001 * (k % 7) for k in range(30)]
        late = []
        await pace(dues, lambda k: late.append(time.monotonic() - dues[k]))
        return sorted(late)
    late = asyncio.run(go())
    assert len(late) == 30 and late[0] >= 0.0  # every one fired, never before its time


def test_load_client_retries_a_stale_connection_on_a_fresh_one():
    """After a pause every pooled keep-alive connection may have been closed by the server:
    the retry must open a new connection, not take the next (also stale) pooled one (that
    was a ConnectionError in ``labsupport bench service``'s lab runs)."""
    async def handle(reader, writer):  # one answer per connection, then close (a timeout)
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()
        writer.close()

    async def go():
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        client = HttpClient(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}")
        try:
            first = await asyncio.gather(*(client.request("GET", "/x") for _ in range(3)))
            assert len(client._idle) == 3  # pooled, but the server has closed all three
            await asyncio.sleep(0.05)
            return first, await client.request("GET", "/x")
        finally:
            await client.aclose()
            server.close()
    first, after = asyncio.run(go())
    assert first == [(200, b"ok")] * 3 and after == (200, b"ok")
