"""``labsupport serve --replicas N``: real processes behind the router."""
from __future__ import annotations

import asyncio
import os
import signal
import tempfile
from pathlib import Path

import httpx
import numpy as np
import pytest

from labsupport.batching.routing import ROUTINGS
from labsupport.serving.api.encoders import FakeEncoder
from labsupport.serving.ops import procs
from labsupport.serving.ops.replicas import replica_argv
from labsupport.serving.ops.serve import main as serve_main


def test_serve_refuses_a_bad_replica_count(capsys):
    assert serve_main(["--replicas", "0", "--model", "fake"]) == 2
    assert "replicas must be an integer in [1, 64]" in capsys.readouterr().err


def test_router_options_are_not_passed_to_replicas():
    argv = ["--model", "fake", "--replicas", "3", "--routing=p2c", "--port", "9", "--max-batch", "8"]
    assert replica_argv(argv) == ["--model", "fake", "--max-batch", "8"]


def _children(pid: int) -> list[int]:
    kids = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(x) for x in kids.read_text().split()] if kids.exists() else []


@pytest.fixture
def replicated(request):
    routing, fixed_ms = request.param
    tmp = Path(tempfile.mkdtemp(prefix="test-replicas-"))
    proc, url = procs.start(procs.lab_command(
        "serve", "--replicas", "3", "--routing", routing, "--model", "fake", "--fake-fixed-ms",
        str(fixed_ms), "--max-delay-ms", "2", "--port", "0", "--ready-file", str(tmp / "url")),
        tmp / "url", tmp / "router.log", 60, "the router")
    try:
        yield proc, url
    finally:
        procs.stop(proc)
    assert not any(Path(f"/proc/{k}").exists() for k in _children(proc.pid))


async def _send(url: str, texts: list[str], kill=None) -> list[httpx.Response]:
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        async def one(k, t):
            if kill is not None and k == len(texts) // 3:
                kill()
            return await client.post("/embed", json={"input": t})
        return await asyncio.gather(*(one(k, t) for k, t in enumerate(texts)))


def _assert_right_answers(texts, responses):
    fake = FakeEncoder()
    assert [r.status_code for r in responses] == [200] * len(texts)
    for t, r in zip(texts, responses):
        np.testing.assert_allclose(r.json()["embeddings"][0], fake.embed([t])[0], atol=1e-5)


@pytest.mark.parametrize("replicated", [(r, 5.0) for r in ROUTINGS], indirect=True)
def test_every_request_gets_its_own_answer_through_the_router(replicated):
    proc, url = replicated
    texts = [f"request number {k} " + "word " * (k % 7) for k in range(60)]
    responses = asyncio.run(_send(url, texts))
    _assert_right_answers(texts, responses)
    stats = httpx.get(url + "/router").json()
    sent = [r["sent"] for r in stats["replicas"]]
    assert sum(sent) == len(texts) and min(sent) > 0, stats
    if stats["routing"] == "round_robin":
        assert sent == [20, 20, 20]
    model = httpx.get(url + "/v1/models").json()["data"][0]["id"]  # OpenAI's routes, relayed
    oa = httpx.post(url + "/v1/embeddings", json={"input": texts[:2], "model": model})
    assert oa.status_code == 200 and len(oa.json()["data"]) == 2, oa.text
    assert httpx.post(url + "/config", json={"max_batch": 8}).json()["max_batch"] == 8
    for r in stats["replicas"]:  # the config reached every replica
        assert httpx.get(r["url"] + "/config").json()["max_batch"] == 8


@pytest.mark.parametrize("replicated", [("round_robin", 40.0)], indirect=True)
def test_a_replica_killed_mid_burst_loses_no_request(replicated):
    proc, url = replicated
    victim = _children(proc.pid)[0]
    texts = [f"burst text {k}" for k in range(90)]
    responses = asyncio.run(_send(url, texts, kill=lambda: os.kill(victim, signal.SIGKILL)))
    _assert_right_answers(texts, responses)
    stats = httpx.get(url + "/router").json()
    assert sum(r["failures"] for r in stats["replicas"]) >= 1, stats
    assert httpx.get(url + "/healthz").json()["replicas_up"] == 2
