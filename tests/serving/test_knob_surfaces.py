"""Every knob surface derives from the one list (issue 35, item 1): a knob added to
``BatchConfig`` (a subclass with one more ``knob`` field, put in its place) shows up on
``/metrics``, the dashboard, every CLI (``serve``, ``export``, ``bench peers``, both peer
servers), the peers' argv, ``MicroBatcher``'s keywords and the export; and under
``--policy adaptive --slo-p99-ms 50`` the live service shows its SLO and no unused delay."""
import importlib.util
from dataclasses import dataclass

import pytest

from labsupport.batching import config
from labsupport.batching.config import BatchConfig, knob
from labsupport.batching.runtime import MicroBatcher
from labsupport.benches import peers as bench
from labsupport.benches.peers.config import PeersConfig
from labsupport.benches.peers.targets import peer_argv
from labsupport.costs import ServiceModel
from labsupport.paths import REPO
from labsupport.serving.api.encoders import FakeEncoder
from labsupport.serving.api.service import EmbeddingService, parse_config
from labsupport.serving.api.stats import parse_prometheus
from labsupport.serving.demo.dashboard_view import controls, describe, readout_html
from labsupport.serving.ops import exporter, serve
from labsupport.serving.ops.launcher import start_service


@dataclass
class Wider(BatchConfig):
    """The lab's knobs and one more, used by every policy."""
    warmup_ms: float = knob(3.0, float, "a knob added by the test", unit="ms",
                            slider=(0.0, 10.0, 0.5))


def _peer_server(name: str):
    """``peers/<name>/server.py`` as a module (its flags need no Ray or Triton)."""
    path = REPO / "peers" / name / "server.py"
    spec = importlib.util.spec_from_file_location(f"peer_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _help(main, capsys) -> str:
    with pytest.raises(SystemExit):
        main(["--help"])
    return capsys.readouterr().out


@pytest.fixture
def wider(monkeypatch):
    monkeypatch.setattr(config, "BatchConfig", Wider)
    return Wider(warmup_ms=4.5)


def test_a_new_knob_reaches_every_surface(wider, capsys):
    # /metrics (the service's registry, as the route serves it) and /config's knob names
    svc = EmbeddingService(FakeEncoder(), wider)
    assert svc.batcher.cfg.warmup_ms == 4.5
    metrics = parse_prometheus(svc.metrics.prometheus(svc).decode())
    assert metrics["lab_warmup_ms"] == 4.5
    assert parse_config(b'{"warmup_ms": 1.0}') == {"warmup_ms": 1.0}
    # the dashboard: a slider, a readout tile, the description line
    cfg = wider.to_dict()
    w, _ = controls(cfg, presenter=False, load_rps=None)
    assert w["warmup_ms"].value == 4.5 and w["warmup_ms"].max == 10.0
    assert "warmup_ms" in readout_html(cfg, None) and "4.5 ms" in readout_html(cfg, None)
    assert "warmup_ms=4.5" in describe(cfg)
    # every CLI: serve, export, bench peers and both peer servers take --warmup-ms
    mains = {"serve": serve.main, "export": exporter.main, "bench peers": bench.main,
             **{f"peers/{n}": _peer_server(n).main for n in ("ray", "pytriton")}}
    for name, main in mains.items():
        assert "--warmup-ms" in _help(main, capsys), name
    # the peers' argv, read back by the peer servers' own flags
    pc = PeersConfig(batch=wider)
    for peer, folder in (("ray_serve", "ray"), ("pytriton", "pytriton")):
        argv = peer_argv(peer, pc)
        assert argv[argv.index("--warmup-ms") + 1] == "4.5"
        args = _peer_server(folder).parser().parse_args(["--port", "1", *argv])
        assert config.from_arguments(args) == wider
    # MicroBatcher's keywords, and a wrong one refused by name
    assert MicroBatcher(lambda xs: xs, wider, warmup_ms=2.0).cfg.warmup_ms == 2.0
    with pytest.raises(TypeError, match="warmup_mss"):
        MicroBatcher(lambda xs: xs, wider, warmup_mss=2.0)
    # the export names it (no setting carries it), never drops it silently
    for system, text in exporter.export(wider).items():
        assert "not exported: warmup_ms=4.5" in text, system


def test_peers_argv_carries_every_knob_and_the_cost_model():
    pc = PeersConfig(batch=BatchConfig(policy="early", max_delay_ms=7.0, slo_p99_ms=40.0),
                     model=ServiceModel(4.0, 0.3, 0.01))
    args = _peer_server("ray").parser().parse_args(["--port", "1", *peer_argv("ray_serve", pc)])
    assert config.from_arguments(args) == pc.batch
    assert (args.fixed_ms, args.per_item_ms, args.per_token_ms) == (4.0, 0.3, 0.01)
    assert args.max_ongoing > 0
    # a peer's window is what the exporter writes: a wait under early, none under
    # work_conserving
    assert exporter.peer_window_us(pc.batch) == exporter.delay_us(pc.batch) == 7000
    assert exporter.peer_window_us(BatchConfig(max_delay_ms=7.0)) == 0
    assert pc.batch.slo_p99_ms == 40.0 and not hasattr(pc, "slo_ms")  # one SLO value


def test_adaptive_service_shows_its_slo_and_no_unused_delay():
    svc = start_service("fake", BatchConfig(policy="adaptive", slo_p99_ms=50.0), timeout_s=60)
    try:
        m = svc.metrics()
        cfg = svc.get("/config")
    finally:
        svc.stop()
    assert m["lab_slo_p99_ms"] == 50.0 and m['lab_policy{policy="adaptive"}'] == 1
    assert "lab_max_delay_ms" not in m
    text = readout_html(cfg, None)
    assert "slo_p99_ms" in text and "50 ms" in text and "max_delay_ms" not in text
    assert "slo_p99_ms=50" in describe(cfg) and "max_delay_ms" not in describe(cfg)
    w, _ = controls(cfg, presenter=False, load_rps=None)
    assert w["slo_p99_ms"].value == 50.0 and w["policy"].value == "adaptive"


def test_serve_checks_the_knobs_before_starting_replicas(capsys, monkeypatch):
    started = []
    import labsupport.serving.ops.replicas as replicas
    monkeypatch.setattr(replicas, "start_replicas", lambda *a: started.append(a) or [])
    assert serve.main(["--replicas", "2", "--max-batch", "0"]) == 2
    assert "max_batch" in capsys.readouterr().err and started == []
