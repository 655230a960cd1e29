"""The protocol of ``labsupport bench peers``: every system gets the same toy model (the
lab's ``fake_model``: sleep a + b·n in one worker thread, one batch at a time), the same
client (``serving.ops.loadgen``: lean keep-alive HTTP, latency from each request's
*scheduled* send, so no coordinated omission) and the same seeded loads, in one run.

The systems start one after another and then stay up together (an idle one costs ~0 CPU;
Ray's daemons ~0.1 core, shown as ``idle_cores``); the loads then visit them in turn:

1. *light*: ``light_rps`` Poisson, far below capacity: the latency a lone request sees;
2. *saturation*: 32, 64 and 128 requests kept in flight (closed loop), ``sat_seconds``
   each: completed requests/s at the best of them, each system at its own saturation;
3. *SLO capacity*: the highest Poisson rate whose p99 latency is ≤ ``batch.slo_p99_ms`` with no
   failed request, found by bisection below the saturation rate; the probes of all
   systems are interleaved step by step, so drift on a shared machine hits each alike.

Every answer that is not 200 (and every timeout or connection error) counts as failed.
Who the systems are and how each is loaded: ``targets.py``; the knobs: ``config.py``.
"""
from __future__ import annotations

import asyncio
import json

from ...serving.ops.loadgen import schedule
from .config import PeersConfig
from .cpu import CpuMeter
from .targets import Target, start


def passes(fig: dict, cfg: PeersConfig) -> bool:
    """A probe holds the SLO: nothing failed and p99 ≤ ``batch.slo_p99_ms``."""
    p99 = fig["latency_ms"]["p99"]
    return fig["failed"] == 0 and p99 is not None and p99 <= cfg.batch.slo_p99_ms


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


def dumps(obj) -> str:
    return json.dumps(obj, indent=1)
