"""``labsupport bench peers``: Ray Serve's ``@serve.batch``, NVIDIA PyTriton's dynamic
batcher and the lab's ``MicroBatcher`` (in-process and over HTTP) side by side, on the
same toy model and the same seeded Poisson load, in one run (``run.py`` has the protocol).

The peers are opt-in: ``make peers`` installs each in its own venv under ``.peers/``;
a peer that is not installed is reported as skipped. Prints JSON and writes
``<out>/peers.json`` and ``<out>/peers.png`` (default ``build/bench-peers/``; notebook 07
shows them). Peers start one after another, never together (2 cores).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from ...batching.config import BatchConfig
from ...costs import ServiceModel
from ...paths import REPO
from .venvs import missing
from .run import PEERS, PeersConfig, config_json, dumps, measure

OUT = REPO / "build" / "bench-peers"
GOALS = {"lab_saturation_vs_pytriton": ">= 2x", "lab_saturation_vs_ray_serve": ">= 7x",
         "lab_light_p50_ms": "<= service(1) + 1 ms",
         "peers_add_their_window": "light p50 - service(1) >= window / 2"}


def verdict(peers: dict, cfg: PeersConfig) -> dict:
    """Each goal per lab variant (in-process, HTTP); None where a peer was skipped."""
    s1, w = cfg.model.cost(1), cfg.batch.max_delay_ms
    frac = {n: r["saturation"]["fraction_of_ideal"] for n, r in peers.items() if "saturation" in r}
    p50 = {n: r["light"]["latency_ms"]["p50"] for n, r in peers.items() if "light" in r}
    out: dict = {}
    for lab in ("lab_inprocess", "lab_http"):
        if lab not in frac:
            continue
        for peer, k in (("pytriton", 2.0), ("ray_serve", 7.0)):
            ratio = round(frac[lab] / frac[peer], 2) if frac.get(peer) else None
            out[f"{lab}_over_{peer}"] = {"ratio": ratio, "goal": f">= {k:g}x",
                                         "met": None if ratio is None else bool(ratio >= k)}
        out[f"{lab}_light_p50_ms"] = {"p50": p50[lab], "limit": s1 + 1,
                                      "met": bool(p50[lab] is not None and p50[lab] <= s1 + 1)}
    for peer in ("pytriton", "ray_serve"):
        if peer in p50 and p50[peer] is not None:
            out[f"{peer}_adds_window_ms"] = {"added": round(p50[peer] - s1, 2),
                                            "met": bool(p50[peer] - s1 >= w / 2)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="labsupport bench peers", description=__doc__)
    d = PeersConfig()
    ap.add_argument("--peers", default=",".join(PEERS), help=f"comma-separated, of {PEERS}")
    ap.add_argument("--max-batch", type=int, default=d.batch.max_batch)
    ap.add_argument("--max-delay-ms", type=float, default=d.batch.max_delay_ms)
    ap.add_argument("--fixed-ms", type=float, default=d.model.fixed_ms)
    ap.add_argument("--per-item-ms", type=float, default=d.model.per_item_ms)
    ap.add_argument("--light-rps", type=float, default=d.light_rps)
    ap.add_argument("--light-n", type=int, default=d.light_n)
    ap.add_argument("--sat-factor", type=float, default=d.sat_factor)
    ap.add_argument("--sat-seconds", type=float, default=d.sat_seconds)
    ap.add_argument("--seed", type=int, default=d.seed)
    ap.add_argument("--out", type=Path, default=OUT, help="folder for peers.json, peers.png")
    ap.add_argument("--quick", action="store_true", help="smoke test: ~1 s of each load")
    a = ap.parse_args(argv)
    names = [n.strip() for n in a.peers.split(",") if n.strip()]
    bad = sorted(set(names) - set(PEERS))
    if bad:
        print(f"labsupport bench peers: --peers: unknown {bad}; choose from {PEERS}",
              file=sys.stderr)
        return 2
    try:
        cfg = PeersConfig(BatchConfig(max_batch=a.max_batch, max_delay_ms=a.max_delay_ms),
                          ServiceModel(a.fixed_ms, a.per_item_ms), a.light_rps,
                          20 if a.quick else a.light_n, a.sat_factor,
                          0.4 if a.quick else a.sat_seconds, seed=a.seed)
    except ValueError as exc:
        print(f"labsupport bench peers: {exc}", file=sys.stderr)
        return 2
    skipped = missing()
    peers: dict = {}
    for name in names:
        if name in skipped:
            peers[name] = {"skipped": skipped[name]}
            continue
        try:
            peers[name] = measure(name, cfg)
        except Exception as exc:  # one peer failing must not lose the others' figures
            peers[name] = {"error": f"{type(exc).__name__}: {exc}"[-1500:]}
    result = {"bench": "peers", "created_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
              "config": config_json(cfg), "cpus": os.cpu_count(),
              "loadavg": [round(x, 2) for x in os.getloadavg()], "peers": peers,
              "goals": GOALS, "met": verdict(peers, cfg),
              "note": "latency from each request's scheduled send (open loop); cpu in "
                      "cores: other_cores = whole box - the peer's process tree - the load "
                      "generator (this process)"}
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "peers.json").write_text(dumps(result))
    if any("saturation" in r for r in peers.values()):
        from .plot import save
        result["plot"] = str(save(result, a.out / "peers.png"))
    print(dumps(result))
    return 0
