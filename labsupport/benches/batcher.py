"""``labsupport bench batcher``: the runtime and the simulator against a sleep-based toy
model (service = fixed + per_item·n), all policies side by side in one run. Prints JSON."""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time

from ..batching.config import BatchConfig
from ..batching.registry import POLICIES
from ..batching.runtime import MicroBatcher
from ..costs import ServiceModel, fake_model
from ..sim.simulator import simulate
from ..traffic import poisson

GOALS = {"work_conserving_saturation_fraction": ">= 0.97",
         "work_conserving_idle_latency_ms": "<= service(1) + 1 ms",
         "cpu_us_per_request": "<= 30", "sim_seconds_per_100k": "<= 0.5"}


async def saturation(policy: str, model: ServiceModel, max_batch: int, delay: float,
                     seconds: float, preseal: bool = True) -> float:
    """Completed requests/s with 4×max_batch closed-loop clients that never pause."""
    done = 0
    async with MicroBatcher(fake_model(model), max_batch=max_batch, max_delay_ms=delay,
                            policy=policy, max_queue=8 * max_batch, preseal=preseal) as mb:
        stop = time.perf_counter() + seconds

        async def client(k: int):
            nonlocal done
            while time.perf_counter() < stop:
                await mb.submit(k)
                done += 1
        t0 = time.perf_counter()
        await asyncio.gather(*(client(k) for k in range(4 * max_batch)))
        return done / (time.perf_counter() - t0)


async def idle_latency(policy: str, model: ServiceModel, delay: float, n: int) -> float:
    """Median ms for a lone request on an idle server (requests sent one after another)."""
    lat = []
    async with MicroBatcher(fake_model(model), max_batch=32, max_delay_ms=delay,
                            policy=policy) as mb:
        for k in range(n):
            t0 = time.perf_counter()
            await mb.submit(k)
            lat.append((time.perf_counter() - t0) * 1000.0)
            await asyncio.sleep(0.002)
    return statistics.median(lat)


async def cpu_per_request(n: int, clients: int = 256) -> float:
    """Process CPU µs per request with an instant async model (the batcher's own cost)."""
    async def instant(items):
        return items
    async with MicroBatcher(instant, max_batch=32, max_delay_ms=0.0, max_queue=4096) as mb:
        per = n // clients

        async def client(k):
            for _ in range(per):
                await mb.submit(k)
        c0 = time.process_time()
        await asyncio.gather(*(client(k) for k in range(clients)))
        return (time.process_time() - c0) / (per * clients) * 1e6


def sim_speed(n: int, model: ServiceModel, policy: str, load: float = 0.9) -> float:
    """Seconds to simulate ``n`` Poisson requests at ``load`` × capacity."""
    reqs = poisson(load * model.capacity(32), n, seed=1)
    t0 = time.perf_counter()
    simulate(reqs, policy, model, max_batch=32, max_delay_ms=5.0)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="labsupport bench batcher", description=__doc__)
    ap.add_argument("--fixed-ms", type=float, default=ServiceModel.fixed_ms)
    ap.add_argument("--per-item-ms", type=float, default=ServiceModel.per_item_ms)
    ap.add_argument("--max-batch", type=int, default=BatchConfig.max_batch)
    ap.add_argument("--seconds", type=float, default=2.0, help="per saturation run")
    ap.add_argument("--quick", action="store_true", help="short runs (smoke test)")
    a = ap.parse_args(argv)
    model = ServiceModel(a.fixed_ms, a.per_item_ms)
    secs = 0.3 if a.quick else a.seconds
    ideal = model.capacity(a.max_batch)
    out: dict = {"model": {"fixed_ms": a.fixed_ms, "per_item_ms": a.per_item_ms,
                           "max_batch": a.max_batch, "ideal_rps": round(ideal, 1)},
                 "saturation_fraction": {}, "idle_latency_ms": {}, "goals": GOALS}
    for name in POLICIES:
        if name == "bucketed":
            continue  # length-aware; measured by `bench padding`
        rps = asyncio.run(saturation(name, model, a.max_batch, 20.0, secs))  # pre-sealed
        out["saturation_fraction"][name] = round(rps / ideal, 4)
        out["idle_latency_ms"][name] = round(asyncio.run(
            idle_latency(name, model, 20.0, 5 if a.quick else 25)), 3)
    out["idle_latency_ms"]["service_1_ms"] = model.cost(1)
    # before/after pre-sealing, side by side in this run (same model, same clients)
    out["saturation_fraction"]["work_conserving_no_preseal"] = round(asyncio.run(saturation(
        "work_conserving", model, a.max_batch, 20.0, secs, preseal=False)) / ideal, 4)
    out["cpu_us_per_request"] = round(asyncio.run(
        cpu_per_request(5_000 if a.quick else 50_000)), 2)
    n = 10_000 if a.quick else 100_000
    out["sim_seconds_per_100k"] = {p: round(sim_speed(n, model, p) * 100_000 / n, 3)
                                   for p in ("work_conserving", "window")}
    wc = "work_conserving"
    out["load_avg"] = [round(x, 2) for x in os.getloadavg()]
    out["met"] = {
        "work_conserving_saturation_fraction": out["saturation_fraction"][wc] >= 0.97,
        "work_conserving_idle_latency_ms": out["idle_latency_ms"][wc] <= model.cost(1) + 1,
        "cpu_us_per_request": out["cpu_us_per_request"] <= 30,
        "sim_seconds_per_100k": out["sim_seconds_per_100k"][wc] <= 0.5}
    print(json.dumps(out, indent=2))
    return 0
