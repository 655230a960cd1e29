"""The lab's service deployed on Ray Serve (issue 13, item 4): its options and bad input
here; with ``make peers``, a real Ray Serve with 2 replicas answers the openai client and
TEI bodies with the lab's vectors, both replicas serve, and it shuts down."""
import asyncio
import concurrent.futures as cf

import httpx
import numpy as np
import pytest

from labsupport.batching.config import BatchConfig
from labsupport.benches.peers import venvs
from labsupport.paths import REPO
from labsupport.serving.api.encoders import FakeEncoder


def _load(path):
    """A module of ``peers/`` (outside the package; it runs in the Ray venv) by its path."""
    import importlib.util
    import sys
    spec = importlib.util.spec_from_file_location(f"peers_{path.stem}", path)
    mod = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


rd = _load(REPO / "peers" / "ray" / "deploy.py")


def test_fixed_replicas_or_an_autoscaling_config():
    fixed = rd.deployment_options(rd.RayDeployConfig(replicas=3, batch=BatchConfig(max_batch=16)))
    assert fixed["num_replicas"] == 3 and "autoscaling_config" not in fixed
    assert fixed["max_ongoing_requests"] == 32  # >= 2 x max_batch, not Ray's default 5
    assert fixed["user_config"]["max_batch"] == 16
    auto = rd.deployment_options(rd.RayDeployConfig(autoscale_min=1, autoscale_max=4,
                                                    target_ongoing=8))
    assert "num_replicas" not in auto
    assert auto["autoscaling_config"] == {"min_replicas": 1, "max_replicas": 4,
                                          "target_ongoing_requests": 8.0,
                                          "upscale_delay_s": 3, "downscale_delay_s": 60}


def test_each_replica_runs_the_whole_batch_config():
    """The replica's service runs the deployment's BatchConfig, policy and SLO included, and
    Ray's user_config is that config, so a redeploy reaches every replica's batcher."""
    cfg = rd.RayDeployConfig(batch=BatchConfig(policy="adaptive", slo_p99_ms=40.0, max_batch=8))
    replica = rd.LabReplica(cfg)
    assert replica.svc.config() == cfg.batch.to_dict() == rd.deployment_options(cfg)["user_config"]
    assert replica.svc.batcher.policy.name == "adaptive"
    assert replica.svc.batcher.policy.cfg.slo_p99_ms == 40.0
    asyncio.run(replica.reconfigure({**cfg.batch.to_dict(), "policy": "early"}))
    assert replica.svc.batcher.policy.name == "early" and cfg.batch.policy == "adaptive"


@pytest.mark.parametrize("kw, name", [({"replicas": 0}, "replicas"),
                                      ({"autoscale_max": 2, "autoscale_min": 3}, "autoscale_min"),
                                      ({"target_ongoing": 0}, "target_ongoing")])
def test_bad_input_names_the_parameter(kw, name):
    with pytest.raises(ValueError, match=name):
        rd.RayDeployConfig(**kw)


def test_cli_refuses_bad_input_before_starting_ray(capsys):
    assert rd.main(["--autoscale", "two"]) == 2
    assert "--autoscale must be MIN:MAX" in capsys.readouterr().err
    assert rd.main(["--replicas", "65"]) == 2
    assert "replicas" in capsys.readouterr().err
    assert rd.main(["--max-batch", "0"]) == 2
    assert "max_batch must be an integer in [1, 4096]" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        rd.main(["--policy", "fastest"])
    assert "--policy: invalid choice: 'fastest'" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_two_ray_replicas_serve_the_lab_api_and_shut_down():
    if venvs.peer_python("ray_serve") is None:
        pytest.skip("Ray Serve not installed: run `make peers` (its venv .peers/ray)")
    peer = venvs.start_peer("ray_serve", ["--replicas", "2", "--status-every", "1"],
                            timeout_s=240, script="deploy.py")
    try:
        assert " 2 replicas " in peer.ready and "'num_replicas': 2" in peer.ready, peer.ready
        from openai import OpenAI
        client = OpenAI(base_url=peer.url + "/v1", api_key="lab", max_retries=0, timeout=30)
        texts = [f"request {i} asks for its vector" for i in range(40)]

        def one(text):
            r = client.embeddings.with_raw_response.create(model="fake", input=[text])
            return r.headers[rd.REPLICA_HEADER], r.parse().data[0].embedding
        with cf.ThreadPoolExecutor(8) as pool:
            got = list(pool.map(one, texts))
        want = FakeEncoder().embed(texts)
        assert np.allclose([v for _, v in got], want, atol=1e-6)
        assert len({pid for pid, _ in got}) == 2, "Ray routed to one replica only"
        tei = httpx.post(peer.url + "/embed", json={"inputs": texts[:3]}, timeout=30,
                         trust_env=False)
        assert tei.status_code == 200 and np.allclose(tei.json(), want[:3], atol=1e-6)
        bad = httpx.post(peer.url + "/v1/embeddings", json={"input": "x"}, timeout=30,
                         trust_env=False)  # the lab's own validation runs in each replica
        assert bad.status_code == 400 and bad.json()["error"]["param"] == "model"
    finally:
        peer.stop(timeout_s=60)
    assert peer.proc.returncode == 0, peer.log.read_text()[-2000:]
    with pytest.raises(httpx.TransportError):
        httpx.get(peer.url + "/healthz", timeout=3, trust_env=False)
