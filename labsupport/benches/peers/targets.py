"""The systems ``labsupport bench peers`` measures and how each is started, stopped and
loaded: the lab's ``MicroBatcher`` in this process, the lab's HTTP service, and the peers
in their own venvs with the settings their docs advise for throughput (``PEER_SETTINGS``).
A ``Target`` takes an open-loop load (at scheduled times) or a closed-loop one."""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Callable

from ...batching.runtime import MicroBatcher, QueueFull
from ...batching.config import to_argv
from ...costs import cost_argv, fake_model
from ...serving.ops.exporter import peer_window_us, ray_max_ongoing
from ...serving.ops.loadgen import LoadResult, run_closed, run_load
from ...serving.ops.pacing import pace
from .config import PeersConfig
from .cpu import CpuMeter
from .venvs import start_peer


def triton_body(r) -> bytes:
    """One item for Triton's KServe v2 HTTP API (the toy model's input tensor ``x``)."""
    return (b'{"inputs":[{"name":"x","shape":[1,1],"datatype":"FP32","data":[[%d]]}]}'
            % (r.id % 1000))


API = {"lab_http": ("/embed", None), "ray_serve": ("/embed", None),
       "pytriton": ("/v2/models/toy/infer", triton_body)}


@dataclass
class Target:
    """One system under test: its HTTP URL and process (None: the in-process batcher)."""
    name: str
    how: str
    settings: dict
    url: str | None = None
    pid: int | None = None
    batcher: MicroBatcher | None = None
    stop: Callable[[], None] | None = None  # stops its process(es)
    startup_s: float = 0.0
    figures: dict = field(default_factory=dict)

    async def load(self, kind: str, reqs, cfg: PeersConfig, inflight: int = 0) -> LoadResult:
        """Put one load on this system: ``open`` (at the scheduled times) or ``closed``
        (``inflight`` requests kept in flight for ``sat_seconds``)."""
        if self.batcher is not None:
            return await (inprocess_open(self.batcher, reqs, cfg.timeout_s) if kind == "open"
                          else inprocess_closed(self.batcher, reqs, inflight, cfg))
        path, body = API[self.name]
        if kind == "open":
            return await run_load(self.url, reqs, path=path, body=body, max_duration_s=120,
                                  timeout_s=cfg.timeout_s)
        return await run_closed(self.url, reqs, inflight, duration_s=cfg.sat_seconds,
                                path=path, body=body, timeout_s=cfg.timeout_s)

    async def measure(self, kind: str, reqs, cfg: PeersConfig, inflight: int = 0) -> dict:
        with CpuMeter(self.pid) as m:
            res = await self.load(kind, reqs, cfg, inflight)
        out = figures(res, m.result, cfg)
        await asyncio.sleep(0.3)  # let a backlog drain before the next load
        return out


async def inprocess_open(mb: MicroBatcher, reqs, timeout_s: float) -> LoadResult:
    """``run_load``'s protocol without HTTP: submit each request at its scheduled time."""
    loop = asyncio.get_running_loop()
    span = (reqs[-1].arrival - reqs[0].arrival) / 1000.0
    res = LoadResult("in-process", "poisson", (len(reqs) - 1) / span if span else 0.0)
    t0 = time.monotonic()  # not loop.time(): uvloop's counts whole ms
    dues = [t0 + (r.arrival - reqs[0].arrival) / 1000.0 for r in reqs]

    async def one(r, due):
        res.lag_ms.append((time.monotonic() - due) * 1000.0)
        res.status.append(await _submit(mb, r.id, timeout_s, res))
        res.latency_ms.append((time.monotonic() - due) * 1000.0)

    tasks = []
    await pace(dues, lambda k: tasks.append(loop.create_task(one(reqs[k], dues[k]))))
    await asyncio.gather(*tasks)
    res.wall_s = time.monotonic() - t0
    return res


async def inprocess_closed(mb: MicroBatcher, reqs, inflight: int, cfg: PeersConfig) -> LoadResult:
    """``run_closed``'s protocol without HTTP: ``inflight`` submitters."""
    res = LoadResult("in-process", f"closed({inflight})", 0.0)
    items = iter(reqs)
    t0 = time.monotonic()
    stop = t0 + cfg.sat_seconds

    async def submitter():
        for r in items:
            t = time.monotonic()
            if t >= stop:
                return
            res.status.append(await _submit(mb, r.id, cfg.timeout_s, res))
            res.latency_ms.append((time.monotonic() - t) * 1000.0)
            res.lag_ms.append(0.0)
    await asyncio.gather(*(submitter() for _ in range(inflight)))
    res.wall_s = time.monotonic() - t0
    res.offered_rps = len(res.status) / res.wall_s
    return res


async def _submit(mb: MicroBatcher, item, timeout_s: float, res: LoadResult) -> int:
    try:
        await asyncio.wait_for(mb.submit(item), timeout_s)
        return 200
    except QueueFull:
        return 429  # as the service would answer
    except asyncio.TimeoutError:
        res.errors["TimeoutError"] = res.errors.get("TimeoutError", 0) + 1
        return 0


def figures(res: LoadResult, cpu: dict, cfg: PeersConfig) -> dict:
    s = res.summary()
    keep = ("offered_rps", "sent", "ok", "error_kinds", "wall_s", "throughput_rps",
            "latency_ms", "median_send_lag_ms", "max_send_lag_ms")
    out = {k: s[k] for k in keep}
    out["failed"] = s["sent"] - s["ok"]  # 429s, other statuses, timeouts, lost connections
    out["fraction_of_ideal"] = round(s["throughput_rps"] / cfg.ideal_rps, 4)
    out["cpu"] = cpu
    return out


def start(name: str, cfg: PeersConfig) -> Target:
    """Start ``name`` (wait until it serves) and return its ``Target``."""
    if name == "lab_inprocess":
        mb = MicroBatcher(fake_model(cfg.model), cfg.batch)
        return Target(name, f"MicroBatcher(policy={cfg.batch.policy!r}) in this process",
                      {"max_batch": cfg.batch.max_batch, "policy": cfg.batch.policy}, batcher=mb)
    t0 = time.monotonic()
    if name == "lab_http":
        from ...serving.ops.launcher import start_service
        svc = start_service("fake", cfg.batch, fake=cfg.model, timeout_s=120)
        return Target(name, "labsupport serve --model fake (uvicorn on httptools + uvloop), "
                      "POST /embed", {"max_batch": cfg.batch.max_batch, "policy": cfg.batch.policy},
                      svc.url, svc.proc.pid, stop=svc.stop,
                      startup_s=round(time.monotonic() - t0, 1))
    peer = start_peer(name, peer_argv(name, cfg))
    settings, how = PEER_SETTINGS[name](cfg)
    return Target(name, how, settings, peer.url, peer.proc.pid, stop=peer.stop,
                  startup_s=peer.started_s)


def peer_argv(name: str, cfg: PeersConfig) -> list[str]:
    """A peer server's flags: every knob of ``cfg.batch`` (``to_argv``; the server takes its
    window from them through ``peer_window_us``), the toy model's cost (``cost_argv``) and,
    for Ray, ``--max-ongoing``."""
    argv = to_argv(cfg.batch) + cost_argv(cfg.model)
    return argv + (["--max-ongoing", str(ray_ongoing(cfg))] if name == "ray_serve" else [])


def ray_ongoing(cfg: PeersConfig) -> int:
    """Ray's ``max_ongoing_requests``: at least two batches, and at least the bench's most
    requests in flight. When every replica holds its maximum, Ray's router queues and
    probes with backoff: measured here, 128 in flight against 64 fell from ~250 to ~53
    req/s, against 128 it held ~214."""
    return max(ray_max_ongoing(cfg.batch.max_batch), *cfg.sat_concurrency)


def _ray(cfg: PeersConfig):
    s = {"max_batch_size": cfg.batch.max_batch,
         "batch_wait_timeout_s": peer_window_us(cfg.batch) / 1e6,
         "max_ongoing_requests": ray_ongoing(cfg), "max_queued_requests": -1,
         "num_replicas": 1, "RAY_SERVE_THROUGHPUT_OPTIMIZED": 1, "access_log": False}
    return s, "@serve.batch behind Ray's HTTP proxy, POST /embed (peers/ray/server.py)"


def _pytriton(cfg: PeersConfig):
    s = {"max_batch_size": cfg.batch.max_batch,
         "max_queue_delay_microseconds": peer_window_us(cfg.batch),
         "preferred_batch_size": None, "instances": 1}
    return s, ("Triton's dynamic batcher, POST /v2/models/toy/infer (KServe v2; "
               "peers/pytriton/server.py)")


PEER_SETTINGS = {"ray_serve": _ray, "pytriton": _pytriton}
