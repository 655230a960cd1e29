"""The protocol of ``labsupport bench peers``: every peer gets the same toy model (the
lab's ``fake_model``: sleep a + b·n in a worker thread), the same seeded Poisson arrivals
(``serving.ops.loadgen.schedule``), sent open loop with latency counted from each request's
*scheduled* send time (``serving.ops.loadgen.run_load``: no coordinated omission), one peer
after another in one run, with the CPU the rest of the box used beside each figure.

Two loads per peer: *light* (``light_rps``, far below capacity: the latency a lone request
sees) and *saturation* (``sat_factor`` × the ideal rate for ``sat_seconds``: the
completed requests/s as a fraction of the ideal ``max_batch / service(max_batch)``).
"""
from __future__ import annotations

import asyncio
import json
import time
from dataclasses import asdict, dataclass, field

from ...batching.config import BatchConfig
from ...batching.runtime import MicroBatcher, QueueFull
from ...costs import ServiceModel, fake_model
from ...serving.ops.exporter import ray_max_ongoing
from ...serving.ops.loadgen import LoadResult, run_load, schedule, sleep_until
from ...validate import check_float, check_int
from .cpu import CpuMeter
from .venvs import start_peer

PEERS = ("lab_inprocess", "lab_http", "pytriton", "ray_serve")


@dataclass
class PeersConfig:
    """One bench run's knobs (ms, req/s, s). ``batch``: every peer's ``max_batch`` (Ray's
    ``max_batch_size``, Triton's too) and ``max_delay_ms`` (their window:
    ``batch_wait_timeout_s``, ``max_queue_delay``; the lab runs its own policy);
    ``model``: the toy model every peer runs."""
    batch: BatchConfig = field(default_factory=BatchConfig)
    model: ServiceModel = field(default_factory=ServiceModel)
    light_rps: float = 20.0     # light load: ~10 % busy, so each request mostly rides alone
    light_n: int = 100          # 5 s of light load: a stable median
    sat_factor: float = 1.3     # saturation: 30 % over ideal keeps a queue without a flood
    sat_seconds: float = 2.0    # of offered overload; the queue then drains
    timeout_s: float = 15.0     # per request: a peer that collapses is cut off, not waited
    seed: int = 0

    def __post_init__(self):
        check_float("light_rps", self.light_rps, 0.1, 1000.0)
        check_int("light_n", self.light_n, 5, 10_000)
        check_float("sat_factor", self.sat_factor, 1.0, 5.0)
        check_float("sat_seconds", self.sat_seconds, 0.2, 30.0)
        check_float("timeout_s", self.timeout_s, 1.0, 120.0)

    @property
    def ideal_rps(self) -> float:
        return self.model.capacity(self.batch.max_batch)

    def loads(self) -> dict:
        sat_rate = self.sat_factor * self.ideal_rps
        return {"light": schedule("poisson", self.light_rps, self.light_n, seed=self.seed,
                                  min_tokens=8, max_tokens=8),
                "saturation": schedule("poisson", sat_rate, int(sat_rate * self.sat_seconds),
                                       seed=self.seed + 1, min_tokens=8, max_tokens=8)}


def triton_body(r) -> bytes:
    """One item for Triton's KServe v2 HTTP API (the toy model's input tensor ``x``)."""
    return (b'{"inputs":[{"name":"x","shape":[1,1],"datatype":"FP32","data":[[%d]]}]}'
            % (r.id % 1000))


API = {"lab_http": ("/embed", None), "ray_serve": ("/embed", None),
       "pytriton": ("/v2/models/toy/infer", triton_body)}


async def run_inprocess(mb: MicroBatcher, reqs, timeout_s: float) -> LoadResult:
    """``run_load``'s protocol without HTTP: submit each request at its scheduled time."""
    loop = asyncio.get_running_loop()
    span = (reqs[-1].arrival - reqs[0].arrival) / 1000.0
    res = LoadResult("in-process", "poisson", (len(reqs) - 1) / span if span else 0.0)
    t0 = loop.time()

    async def one(r, due):
        res.lag_ms.append((loop.time() - due) * 1000.0)
        try:
            await asyncio.wait_for(mb.submit(r.id), timeout_s)
            code = 200
        except QueueFull:
            code = 429  # as the service would answer
        except asyncio.TimeoutError:
            code = 0
            res.errors["TimeoutError"] = res.errors.get("TimeoutError", 0) + 1
        res.status.append(code)
        res.latency_ms.append((loop.time() - due) * 1000.0)

    tasks = []
    for r in reqs:
        due = t0 + (r.arrival - reqs[0].arrival) / 1000.0
        await sleep_until(due)
        tasks.append(asyncio.create_task(one(r, due)))
    await asyncio.gather(*tasks)
    res.wall_s = loop.time() - t0
    return res


def figures(res: LoadResult, cpu: dict, cfg: PeersConfig) -> dict:
    s = res.summary()
    keep = ("offered_rps", "sent", "ok", "rejected", "errors", "error_kinds", "wall_s",
            "throughput_rps", "latency_ms", "max_send_lag_ms")
    out = {k: s[k] for k in keep}
    out["fraction_of_ideal"] = round(s["throughput_rps"] / cfg.ideal_rps, 4)
    out["cpu"] = cpu
    return out


def measure_http(name: str, url: str, cfg: PeersConfig, pid: int | None) -> dict:
    path, body = API[name]
    out = {}
    warm = schedule("poisson", cfg.light_rps, 10, seed=cfg.seed + 7, min_tokens=8, max_tokens=8)
    asyncio.run(run_load(url, warm, path=path, body=body, timeout_s=cfg.timeout_s))
    for load, reqs in cfg.loads().items():
        with CpuMeter(pid) as m:
            res = asyncio.run(run_load(url, reqs, path=path, body=body, max_duration_s=60,
                                       timeout_s=cfg.timeout_s))
        out[load] = figures(res, m.result, cfg)
        time.sleep(0.5)  # let a backlog drain before the next load
    return out


def measure_inprocess(cfg: PeersConfig) -> dict:
    async def go():
        out = {}
        async with MicroBatcher(fake_model(cfg.model, spin_ms=0.2), cfg.batch,
                                max_queue=100_000) as mb:
            for k in range(10):
                await mb.submit(k)
            for load, reqs in cfg.loads().items():
                with CpuMeter(None) as m:
                    res = await run_inprocess(mb, reqs, cfg.timeout_s)
                out[load] = figures(res, m.result, cfg)
                await asyncio.sleep(0.5)
        return out
    return asyncio.run(go())


def measure(name: str, cfg: PeersConfig) -> dict:
    """Start ``name``, put both loads on it, stop it; its figures (or why it was skipped)."""
    if name == "lab_inprocess":
        return {"how": f"MicroBatcher(policy={cfg.batch.policy!r}) in this process",
                **measure_inprocess(cfg)}
    knobs = ["--max-batch", str(cfg.batch.max_batch), "--max-delay-ms",
             str(cfg.batch.max_delay_ms), "--fixed-ms", str(cfg.model.fixed_ms),
             "--per-item-ms", str(cfg.model.per_item_ms)]
    if name == "lab_http":
        from ...serving.ops.launcher import start_service
        svc = start_service("fake", cfg.batch, fake=cfg.model, max_queue=100_000,
                            timeout_s=120)
        try:
            return {"how": "labsupport serve --model fake (uvicorn), POST /embed",
                    **measure_http(name, svc.url, cfg, svc.proc.pid)}
        finally:
            svc.stop()
    peer = start_peer(name, knobs)
    how = {"ray_serve": "@serve.batch(max_batch_size, batch_wait_timeout_s), "
                        f"max_ongoing_requests={ray_max_ongoing(cfg.batch.max_batch)}, POST /embed",
           "pytriton": "Triton dynamic_batching(max_queue_delay, preferred sizes: half and "
                       "all of max_batch), POST /v2/models/toy/infer"}[name]
    try:
        return {"how": how, "startup_s": peer.started_s,
                **measure_http(name, peer.url, cfg, peer.proc.pid)}
    finally:
        peer.stop()


def config_json(cfg: PeersConfig) -> dict:
    """The run's knobs as one flat JSON object (the plot and notebook 07 read it)."""
    rest = {k: v for k, v in asdict(cfg).items() if k not in ("batch", "model")}
    return {**cfg.batch.to_dict(), **asdict(cfg.model), **rest,
            "ideal_rps": round(cfg.ideal_rps, 1),
            "service_1_ms": cfg.model.cost(1), "sat_offered_rps": round(
                cfg.sat_factor * cfg.ideal_rps, 1)}


def dumps(obj) -> str:
    return json.dumps(obj, indent=1)
