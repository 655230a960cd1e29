"""``labsupport bench peers``: its protocol parts (in-process load, the goals' verdict,
bad input, the plot, chunked bodies as Ray's proxy sends them) without any peer, and a
short smoke run of each peer when ``make peers`` installed it (else a clean skip)."""
import asyncio
import json

import pytest

from labsupport.batching.runtime import MicroBatcher
from labsupport.benches import peers as bench
from labsupport.benches.peers import venvs
from labsupport.benches.peers.plot import figure
from labsupport.benches.peers.run import PeersConfig, measure, run_inprocess, triton_body
from labsupport.costs import ServiceModel, fake_model
from labsupport.serving.ops.loadgen import HttpClient, schedule


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
    with pytest.raises(ValueError, match="sat_factor"):
        PeersConfig(sat_factor=0.5)


def test_in_process_latency_counts_from_the_scheduled_send():
    """A batcher that runs one item at a time (max_batch 1) at 80 req/s offered against
    a 25 ms model (capacity 40/s): requests queue, and each waits for the backlog ahead
    of it, counted from its scheduled send."""
    cfg = PeersConfig(model=ServiceModel(25.0, 0.0))
    reqs = schedule("poisson", 80.0, 40, seed=3, min_tokens=8, max_tokens=8)

    async def go():
        async with MicroBatcher(fake_model(cfg.model), max_batch=1, max_delay_ms=0.0,
                                max_queue=1000) as mb:
            return await run_inprocess(mb, reqs, 10.0)
    res = asyncio.run(go())
    s = res.summary()
    assert s["ok"] == 40 and s["errors"] == 0
    assert s["latency_ms"]["p50"] >= 25.0  # never below one service time
    # overloaded 2x: the last requests waited for most of the queue ahead of them
    assert s["latency_ms"]["p99"] > 10 * 25.0 * 0.5


def _result(frac, p50):
    cfg = PeersConfig()
    peers = {n: {"saturation": {"fraction_of_ideal": f, "cpu": {"other_cores": 0.5}},
                 "light": {"latency_ms": {"p50": p}, "cpu": {"other_cores": 0.4}}}
             for n, f, p in zip(("lab_inprocess", "lab_http", "pytriton", "ray_serve"),
                                frac, p50)}
    return cfg, peers


def test_verdict_checks_each_goal_against_the_figures():
    cfg, peers = _result((0.9, 0.5, 0.4, 0.1), (5.6, 6.5, 11.0, 10.6))
    met = bench.verdict(peers, cfg)
    assert met["lab_inprocess_over_pytriton"] == {"ratio": 2.25, "goal": ">= 2x", "met": True}
    assert met["lab_inprocess_over_ray_serve"] == {"ratio": 9.0, "goal": ">= 7x", "met": True}
    assert met["lab_http_over_pytriton"]["met"] is False  # 1.25x < 2x
    assert met["lab_inprocess_light_p50_ms"]["met"] is True      # 5.6 <= 5.2 + 1
    assert met["lab_http_light_p50_ms"]["met"] is False          # 6.5 > 6.2
    assert met["pytriton_adds_window_ms"] == {"added": 5.8, "met": True}
    json.dumps(met)  # plain JSON types only
    del peers["pytriton"]
    assert bench.verdict(peers, cfg)["lab_http_over_pytriton"] ["met"] is None


def test_plot_has_one_bar_per_measured_peer():
    cfg, peers = _result((0.9, 0.5, 0.4, 0.1), (5.6, 6.5, 11.0, 10.6))
    peers["ray_serve"] = {"skipped": "not installed"}
    fig = figure({"config": __import__("labsupport.benches.peers.run", fromlist=["x"])
                  .config_json(cfg), "peers": peers, "cpus": 2, "loadavg": [1.0, 1, 1]})
    sat, light = fig.axes
    assert len(sat.patches) == len(light.patches) == 3
    assert [round(p.get_height(), 2) for p in sat.patches] == [0.9, 0.5, 0.4]


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


SMOKE = PeersConfig(light_rps=20.0, light_n=10, sat_factor=1.0, sat_seconds=0.3,
                    timeout_s=10.0)


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize("peer", sorted(venvs.VENVS))
def test_peer_smoke_run(peer):
    """A couple of seconds of each peer, through the bench's own path."""
    if venvs.peer_python(peer) is None:
        pytest.skip(f"{peer} not installed: `make peers` installs the peers (.peers/)")
    r = measure(peer, SMOKE)
    light, sat = r["light"], r["saturation"]
    assert light["ok"] == 10 and light["errors"] == 0, r
    assert light["latency_ms"]["p50"] >= SMOKE.model.cost(1)  # a real model ran
    assert sat["ok"] > 0 and 0 < sat["fraction_of_ideal"] <= 1.05
    assert light["cpu"]["peer_cores"] > 0  # the peer's process tree was found and measured


def test_sleep_until_is_never_early_and_not_a_millisecond_late():
    """``asyncio.sleep`` wakes up to 1 ms late (epoll's ms timeout): on a scheduled-send
    clock that ms is charged to the server. ``sleep_until`` yields the last 1.5 ms."""
    from labsupport.serving.ops.loadgen import sleep_until

    async def go():
        loop = asyncio.get_running_loop()
        late = []
        for k in range(30):
            when = loop.time() + 0.003 + 0.0001 * k
            await sleep_until(when)
            late.append(loop.time() - when)
        return sorted(late)
    late = asyncio.run(go())
    assert late[0] >= 0.0  # never before its time
    assert late[len(late) // 2] < 0.0006, late  # a plain sleep's median is ~1 ms


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
