"""``labsupport bench peers``: Ray Serve's ``@serve.batch``, NVIDIA PyTriton's dynamic
batcher and the lab's ``MicroBatcher`` (in-process and over HTTP) side by side, each with
the throughput settings its own docs recommend, on the same toy model, the same client and
the same seeded loads, in one run: light-load latency, saturation throughput and the
highest rate held at p99 ≤ 50 ms (``run.py`` has the protocol). A ratio is printed only
between systems that failed no request.

The peers are opt-in: ``make peers`` installs each in its own venv under ``.peers/``;
a peer that is not installed is reported as skipped. Prints JSON and writes
``<out>/peers.json`` and ``<out>/peers.png`` (default ``build/bench-peers/``; notebook 07
shows them).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

from ...batching.config import add_arguments, from_arguments
from ...costs import add_cost_arguments, cost_from_arguments
from ...paths import REPO
from .venvs import missing
from .config import PEERS, PeersConfig, config_json
from .run import dumps, run

OUT = REPO / "build" / "bench-peers"
GOALS = {"no_failed_requests": "every system answers every request 200",
         "lab_http_over_pytriton": ">= 1.0x at saturation and at p99 <= slo_p99_ms",
         "lab_inprocess_of_ideal": ">= 0.97 at saturation",
         "lab_http_light_p50_ms": "<= service(1) + 1.5 ms"}
FIGURES = {"saturation": ("saturation", "throughput_rps"), "slo": ("slo", "rate_rps")}


def verdict(peers: dict, cfg: PeersConfig) -> dict:
    """Each goal against the figures; a ratio only between systems that failed no request
    (else ``ratio`` is None and ``why`` says who failed how many)."""
    ok = {n: r for n, r in peers.items() if "saturation" in r}
    failed = {n: r["failed"] for n, r in ok.items()}
    out: dict = {"no_failed_requests": {"failed": failed,
                                        "met": bool(ok) and not any(failed.values())}}
    lab = "lab_http"
    for peer in ("pytriton", "ray_serve"):
        for fig, (load, key) in FIGURES.items():
            m: dict = {"ratio": None, "goal": ">= 1.0x" if peer == "pytriton" else None}
            bad = [f"{n} failed {failed[n]} requests" for n in (lab, peer) if failed.get(n)]
            if lab not in ok or peer not in ok:
                m["why"] = "not measured"
            elif bad:
                m["why"] = "; ".join(bad) + ": no ratio"
            else:
                a, b = ok[lab][load][key], ok[peer][load][key]
                m["ratio"] = round(a / b, 2) if b else None
                m["why"] = None if b else f"{peer} sustained no rate"
            if m["goal"]:
                m["met"] = None if m["ratio"] is None else bool(m["ratio"] >= 1.0)
            out[f"{lab}_over_{peer}_{fig}"] = m
    if "lab_inprocess" in ok:
        frac = ok["lab_inprocess"]["saturation"]["fraction_of_ideal"]
        out["lab_inprocess_of_ideal"] = {"fraction": frac, "goal": ">= 0.97",
                                         "met": bool(frac >= 0.97)}
    if lab in ok:
        p50, limit = ok[lab]["light"]["latency_ms"]["p50"], round(cfg.model.cost(1) + 1.5, 3)
        out["lab_http_light_p50_ms"] = {"p50": p50, "limit": limit,
                                        "met": bool(p50 is not None and p50 <= limit)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="labsupport bench peers", description=__doc__)
    d = PeersConfig()
    ap.add_argument("--peers", default=",".join(PEERS), help=f"comma-separated, of {PEERS}")
    add_arguments(ap, d.batch)  # every BatchConfig knob: the lab's, and the peers' window
    add_cost_arguments(ap, d.model)  # the toy model every system runs
    for knob in ("light_rps", "light_n", "sat_seconds", "probe_seconds", "probe_steps", "seed"):
        ap.add_argument("--" + knob.replace("_", "-"), type=type(getattr(d, knob)),
                        default=getattr(d, knob))
    ap.add_argument("--sat-concurrency", type=int, nargs="+", default=list(d.sat_concurrency),
                    help="requests in flight at saturation; the best throughput counts")
    ap.add_argument("--out", type=Path, default=OUT, help="folder for peers.json, peers.png")
    ap.add_argument("--quick", action="store_true", help="smoke test: ~1 s of each load")
    a = ap.parse_args(argv)
    names = [n.strip() for n in a.peers.split(",") if n.strip()]
    bad = sorted(set(names) - set(PEERS))
    if bad:
        print(f"labsupport bench peers: --peers: unknown {bad}; choose from {PEERS}",
              file=sys.stderr)
        return 2
    quick = {"light_n": 20, "sat_seconds": 0.5, "probe_seconds": 0.3, "probe_steps": 2,
             "sat_concurrency": (64,)} if a.quick else {}
    try:
        knobs = {k: getattr(a, k) for k in asdict(d) if k not in ("batch", "model") and hasattr(a, k)}
        cfg = PeersConfig(from_arguments(a), cost_from_arguments(a),
                          **{**knobs, "sat_concurrency": tuple(a.sat_concurrency), **quick})
    except ValueError as exc:
        print(f"labsupport bench peers: {exc}", file=sys.stderr)
        return 2
    import uvloop  # the client's loop: lean, as the lab's service runs
    load0 = [round(x, 2) for x in os.getloadavg()]
    peers = uvloop.run(run(names, cfg, missing()))
    result = {"bench": "peers", "created_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
              "config": config_json(cfg), "cpus": os.cpu_count(),
              "loadavg": [round(x, 2) for x in os.getloadavg()], "loadavg_before": load0,
              "peers": peers, "goals": GOALS, "met": verdict(peers, cfg),
              "note": "every system up together, loads in turn (SLO probes interleaved); "
                      "light/SLO latency from each request's scheduled send (open loop), "
                      "saturation closed loop; cpu in cores: other_cores = whole box - the "
                      "system's process tree - the load generator (this process)"}
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "peers.json").write_text(dumps(result))
    if any("saturation" in r for r in peers.values()):
        from .plot import save
        result["plot"] = str(save(result, a.out / "peers.png"))
    print(dumps(result))
    return 0
