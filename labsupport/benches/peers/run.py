"""The protocol of ``labsupport bench peers``: every system gets the same toy model (the
lab's ``fake_model``: sleep a + b·n in one worker thread, one batch at a time), the same
client (``serving.ops.loadgen``: lean keep-alive HTTP, latency from each request's
*scheduled* send, so no coordinated omission) and the same seeded loads, in one run.

The systems start one after another and then stay up together (an idle one costs ~0 CPU;
Ray's daemons ~0.1 core, shown as ``idle_cores``); the loads then visit them in turn:

1. *light*: ``light_rps`` Poisson, far below capacity: the latency a lone request sees;
2. *saturation*: 32, 64 and 128 requests kept in flight (closed loop), ``sat_seconds``
   each: completed requests/s at the best of them, each system at its own saturation;
3. *SLO capacity*: the highest Poisson rate whose p99 latency is ≤ ``slo_ms`` with no
   failed request, found by bisection below the saturation rate; the probes of all
   systems are interleaved step by step, so drift on a shared machine hits each alike.

Every answer that is not 200 (and every timeout or connection error) counts as failed.
"""
from __future__ import annotations

import asyncio
import json
import time
from dataclasses import asdict, dataclass, field

from ...batching.runtime import MicroBatcher, QueueFull
from ...costs import ServiceModel, fake_model
from ...serving.ops.loadgen import LoadResult, pace, run_closed, run_load, schedule
from ...validate import check_float, check_int
from .cpu import CpuMeter
from .venvs import start_peer

PEERS = ("lab_inprocess", "lab_http", "pytriton", "ray_serve")


@dataclass
class PeersConfig:
    """One bench run's knobs (ms, req/s, s)."""
    fixed_ms: float = 5.0       # toy model a: the recipes' 5 ms + 0.2 ms/item (ideal 2807/s)
    per_item_ms: float = 0.2    # toy model b, ms per item
    max_batch: int = 32         # every system's batch cap (Ray max_batch_size, Triton's too)
    max_delay_ms: float = 5.0   # every system's window (Triton's max_queue_delay, Ray's batch_wait_timeout_s; the lab's work-conserving policy never waits on purpose)
    light_rps: float = 20.0     # light load: ~10 % busy, so each request mostly rides alone
    light_n: int = 100          # 5 s of light load: a stable median
    sat_concurrency: tuple[int, ...] = (32, 64, 128)  # in flight at saturation (1-4 batches): each system's best counts
    sat_seconds: float = 2.0    # of closed-loop load per concurrency and system
    slo_ms: float = 50.0        # the p99 latency the SLO capacity must keep
    probe_seconds: float = 2.0  # of Poisson load per SLO probe
    probe_steps: int = 6        # bisection steps: the rate to within 1/64 of saturation
    timeout_s: float = 15.0     # per request: a system that stalls is cut off, not waited
    seed: int = 0

    def __post_init__(self):
        check_float("fixed_ms", self.fixed_ms, 0.0, 1000.0)
        check_float("per_item_ms", self.per_item_ms, 0.0, 1000.0)
        check_int("max_batch", self.max_batch, 1, 1024)
        check_float("max_delay_ms", self.max_delay_ms, 0.0, 1000.0)
        check_float("light_rps", self.light_rps, 0.1, 1000.0)
        check_int("light_n", self.light_n, 5, 10_000)
        if not self.sat_concurrency:
            raise ValueError("sat_concurrency must list one or more in-flight counts")
        self.sat_concurrency = tuple(check_int("sat_concurrency", c, 1, 4096)
                                     for c in self.sat_concurrency)
        check_float("sat_seconds", self.sat_seconds, 0.2, 60.0)
        check_float("slo_ms", self.slo_ms, 1.0, 10_000.0)
        check_float("probe_seconds", self.probe_seconds, 0.2, 60.0)
        check_int("probe_steps", self.probe_steps, 1, 20)
        check_float("timeout_s", self.timeout_s, 1.0, 120.0)

    @property
    def model(self) -> ServiceModel:
        return ServiceModel(self.fixed_ms, self.per_item_ms)

    @property
    def ideal_rps(self) -> float:
        return self.model.capacity(self.max_batch)

    def light(self):
        return schedule("poisson", self.light_rps, self.light_n, seed=self.seed,
                        min_tokens=8, max_tokens=8)

    def saturation(self):
        """Enough requests for ``sat_seconds`` at 1.5× the ideal rate (the time bound ends it)."""
        n = int(1.5 * self.ideal_rps * self.sat_seconds) + max(self.sat_concurrency)
        return schedule("poisson", self.ideal_rps, n, seed=self.seed + 1, min_tokens=8,
                        max_tokens=8)

    def probe(self, rate: float, step: int):
        n = max(20, int(rate * self.probe_seconds))
        return schedule("poisson", rate, n, seed=self.seed + 10 + step, min_tokens=8,
                        max_tokens=8)


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
    stop: object = None
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
            "latency_ms", "max_send_lag_ms")
    out = {k: s[k] for k in keep}
    out["failed"] = s["sent"] - s["ok"]  # 429s, other statuses, timeouts, lost connections
    out["fraction_of_ideal"] = round(s["throughput_rps"] / cfg.ideal_rps, 4)
    out["cpu"] = cpu
    return out


def passes(fig: dict, cfg: PeersConfig) -> bool:
    """A probe holds the SLO: nothing failed and p99 ≤ ``slo_ms``."""
    p99 = fig["latency_ms"]["p99"]
    return fig["failed"] == 0 and p99 is not None and p99 <= cfg.slo_ms


# ---- starting and stopping each system -------------------------------------------------
def start(name: str, cfg: PeersConfig) -> Target:
    """Start ``name`` (wait until it serves) and return its ``Target``."""
    if name == "lab_inprocess":
        mb = MicroBatcher(fake_model(cfg.model, spin_ms=0.2), max_batch=cfg.max_batch,
                          max_delay_ms=cfg.max_delay_ms, max_queue=100_000)
        return Target(name, "MicroBatcher(policy='work_conserving') in this process",
                      {"max_batch": cfg.max_batch, "policy": "work_conserving"}, batcher=mb)
    t0 = time.monotonic()
    if name == "lab_http":
        from ...serving.ops.launcher import start_service
        svc = start_service("fake", max_batch=cfg.max_batch, max_delay_ms=cfg.max_delay_ms,
                            max_queue=100_000, fake_fixed_ms=cfg.fixed_ms,
                            fake_per_item_ms=cfg.per_item_ms, timeout_s=120)
        return Target(name, "labsupport serve --model fake (uvicorn on httptools + uvloop), "
                      "POST /embed", {"max_batch": cfg.max_batch, "policy": "work_conserving"},
                      svc.url, svc.proc.pid, stop=svc.stop,
                      startup_s=round(time.monotonic() - t0, 1))
    knobs = ["--max-batch", str(cfg.max_batch), "--max-delay-ms", str(cfg.max_delay_ms),
             "--fixed-ms", str(cfg.fixed_ms), "--per-item-ms", str(cfg.per_item_ms)]
    if name == "ray_serve":
        knobs += ["--max-ongoing", str(ray_ongoing(cfg))]
    peer = start_peer(name, knobs)
    settings, how = PEER_SETTINGS[name](cfg)
    return Target(name, how, settings, peer.url, peer.proc.pid, stop=peer.stop,
                  startup_s=peer.started_s)


def ray_ongoing(cfg: PeersConfig) -> int:
    """Ray's ``max_ongoing_requests``: at least two batches, and at least the bench's most
    requests in flight. When every replica holds its maximum, Ray's router queues and
    probes with backoff: measured here, 128 in flight against 64 fell from ~250 to ~53
    req/s, against 128 it held ~214."""
    from ...serving.ops.exporter import ray_max_ongoing
    return max(ray_max_ongoing(cfg.max_batch), *cfg.sat_concurrency)


def _ray(cfg: PeersConfig):
    s = {"max_batch_size": cfg.max_batch, "batch_wait_timeout_s": cfg.max_delay_ms / 1000,
         "max_ongoing_requests": ray_ongoing(cfg), "max_queued_requests": -1,
         "num_replicas": 1, "RAY_SERVE_THROUGHPUT_OPTIMIZED": 1, "access_log": False}
    return s, "@serve.batch behind Ray's HTTP proxy, POST /embed (peers/ray/server.py)"


def _pytriton(cfg: PeersConfig):
    s = {"max_batch_size": cfg.max_batch,
         "max_queue_delay_microseconds": int(cfg.max_delay_ms * 1000),
         "preferred_batch_size": None, "instances": 1}
    return s, ("Triton's dynamic batcher, POST /v2/models/toy/infer (KServe v2; "
               "peers/pytriton/server.py)")


PEER_SETTINGS = {"ray_serve": _ray, "pytriton": _pytriton}


# ---- the run ---------------------------------------------------------------------------
async def run(names: list[str], cfg: PeersConfig, skipped: dict[str, str]) -> dict:
    """Start every system in ``names`` (not in ``skipped``), put the three loads on each,
    stop them all; ``{name: figures | {"skipped": why} | {"error": why}}``."""
    out: dict = {n: {"skipped": skipped[n]} for n in names if n in skipped}
    targets: list[Target] = []
    try:
        for name in (n for n in names if n not in skipped):
            try:
                t = await asyncio.to_thread(start, name, cfg)
            except Exception as exc:  # one system failing must not lose the others
                out[name] = {"error": f"{type(exc).__name__}: {exc}"[-1500:]}
                continue
            if t.batcher is not None:
                await t.batcher.start()
            targets.append(t)
        await _warm(targets, cfg)
        idle = await _idle_cores(targets)
        for t in targets:
            t.figures["light"] = await t.measure("open", cfg.light(), cfg)
        for t in targets:
            await saturation(t, cfg)
        await slo_capacity(targets, cfg)
    finally:
        for t in targets:
            if t.batcher is not None:
                await t.batcher.close()
            elif t.stop is not None:
                await asyncio.to_thread(t.stop)
    for t in targets:
        f = t.figures
        failed = {k: v["failed"] for k, v in f.items() if k != "slo" and "failed" in v}
        failed["slo_probes"] = sum(p["failed"] for p in f.get("slo", {}).get("probes", []))
        out[t.name] = {"how": t.how, "settings": t.settings, "startup_s": t.startup_s,
                       "idle_cores": idle.get(t.name), **f,
                       "failed": sum(failed.values()), "failed_by_load": failed}
    return {n: out[n] for n in names if n in out}


async def saturation(t: Target, cfg: PeersConfig) -> None:
    """Closed loop at each of ``sat_concurrency``; the best throughput is the system's
    saturation (Ray, for one, does worse with more in flight than its best)."""
    runs = {c: await t.measure("closed", cfg.saturation(), cfg, c) for c in cfg.sat_concurrency}
    best = max(runs, key=lambda c: runs[c]["throughput_rps"])
    t.figures["saturation"] = {**runs[best], "inflight": best,
                               "throughput_by_inflight": {c: r["throughput_rps"]
                                                          for c, r in runs.items()},
                               "failed": sum(r["failed"] for r in runs.values())}


async def _warm(targets: list[Target], cfg: PeersConfig) -> None:
    warm = schedule("poisson", cfg.light_rps, 10, seed=cfg.seed + 7, min_tokens=8,
                    max_tokens=8)
    for t in targets:
        await t.load("open", warm, cfg)


async def _idle_cores(targets: list[Target], seconds: float = 1.0) -> dict[str, float]:
    """Each system's own CPU while nothing is sent (cores)."""
    meters = {t.name: CpuMeter(t.pid) for t in targets if t.pid}
    for m in meters.values():
        m.__enter__()
    await asyncio.sleep(seconds)
    for m in meters.values():
        m.__exit__()
    return {n: m.result["peer_cores"] for n, m in meters.items()}


async def slo_capacity(targets: list[Target], cfg: PeersConfig) -> None:
    """Bisect each system's highest Poisson rate that holds the SLO, between 0 and its
    saturation throughput; step k probes every system once (in a rotating order)."""
    state = {t.name: [0.0, t.figures["saturation"]["throughput_rps"], None, []]
             for t in targets}  # lo, hi, figures at lo, probes
    for step in range(cfg.probe_steps):
        k = step % len(targets) if targets else 0
        for t in targets[k:] + targets[:k]:
            lo, hi, _, probes = state[t.name]
            rate = (lo + hi) / 2
            if rate < 1.0:
                continue
            fig = await t.measure("open", cfg.probe(rate, step), cfg)
            fig["rate_rps"] = round(rate, 1)
            fig["holds"] = passes(fig, cfg)
            probes.append(fig)
            if fig["holds"]:
                state[t.name][0], state[t.name][2] = rate, fig
            else:
                state[t.name][1] = rate
    for t in targets:
        lo, hi, best, probes = state[t.name]
        t.figures["slo"] = {"rate_rps": round(lo, 1),
                            "fraction_of_ideal": round(lo / cfg.ideal_rps, 4),
                            "first_failing_rps": round(hi, 1), "at_rate": best,
                            "probes": [{k: p[k] for k in ("rate_rps", "holds", "failed",
                                                          "throughput_rps", "latency_ms")}
                                       for p in probes]}


def config_json(cfg: PeersConfig) -> dict:
    return {**asdict(cfg), "ideal_rps": round(cfg.ideal_rps, 1),
            "service_1_ms": cfg.model.cost(1)}


def dumps(obj) -> str:
    return json.dumps(obj, indent=1)
