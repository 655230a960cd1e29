"""``labsupport bench adaptive``: the SLO-aware ``adaptive`` policy against every fixed
``(max_batch, max_delay_ms)`` setting, found by a grid search in hindsight, on the simulator
(virtual clock: deterministic, seconds of CPU). Prints JSON.

Workloads: (a) bursty on/off arrivals (``traffic.bursty``), (b) the Azure LLM conversation
trace replayed (``traffic.load_trace``: ``../shared/data`` when present, else the lab's
synthetic twin), both shaped by ``labsupport load``'s own schedule. Cost model: the lab's
toy model, ``ServiceModel()``, unless overridden.
Goodput: requests that finish within ``slo_ms`` of arriving, per second of offered traffic
(first to last arrival: the same span for every policy, so a policy that finishes its last
request a few ms later is not charged for it; ``metrics.goodput`` divides by the span to
the last finish instead). Every workload runs at each ``--loads`` share of capacity.
The fixed grid runs policies ``early``, ``work_conserving`` and ``window`` (the lesson's);
the report names the best setting of each and of all fixed ones together.
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from ..costs import ServiceModel
from ..metrics import percentiles
from ..serving.ops.loadgen import schedule
from ..sim.simulator import simulate
from ..traffic import load_trace
from ..validate import check_float, check_int

FIXED = ("early", "work_conserving", "window")
LONGEST = 64  # tokens: the schedule's longest request; capacity counts rows padded to it
GOALS = {"adaptive_vs_best_fixed": ">= 1.0", "adaptive_vs_window_best": ">= 1.3"}


def score(reqs, policy: str, model: ServiceModel, slo_ms: float, **knobs) -> dict:
    """Goodput (req/s within ``slo_ms``), share within it and latency percentiles of one run."""
    res = simulate(reqs, policy, model, **knobs)
    lat = res.latency
    span_s = (res.arrival.max() - res.arrival.min()) / 1000.0
    return {"goodput_rps": round(float(np.sum(lat <= slo_ms)) / span_s, 1),
            "met_share": round(float(np.mean(lat <= slo_ms)), 4),
            "mean_batch": round(float(np.mean(res.batch_size)), 2),
            **{k: round(v, 2) for k, v in percentiles(lat).items()}}


def grid(reqs, model: ServiceModel, slo_ms: float, batches, delays) -> dict:
    """The best setting of each fixed policy, and every run's goodput, keyed by policy."""
    out = {}
    for name in FIXED:
        runs = []
        for mb in batches:
            for d in (delays if name != "work_conserving" else (0.0,)):
                s = score(reqs, name, model, slo_ms, max_batch=mb, max_delay_ms=d)
                runs.append({"max_batch": mb, "max_delay_ms": d, **s})
        best = max(runs, key=lambda r: r["goodput_rps"])
        out[name] = {"best": best, "settings_tried": len(runs)}
    return out


def workload(kind: str, n: int, rate: float, seed: int):
    """``bursty`` or ``trace`` requests at mean ``rate``/s (lengths 8..64 tokens)."""
    return schedule(kind, rate, n, seed=seed)


def compare(reqs, model: ServiceModel, slo_ms: float, max_batch: int, batches, delays) -> dict:
    """Adaptive (``max_batch``, ``slo_p99_ms=slo_ms``) beside the hindsight grid."""
    fixed = grid(reqs, model, slo_ms, batches, delays)
    ad = score(reqs, "adaptive", model, slo_ms, max_batch=max_batch, slo_p99_ms=slo_ms)
    best_name = max(fixed, key=lambda k: fixed[k]["best"]["goodput_rps"])
    best = fixed[best_name]["best"]["goodput_rps"]
    win = fixed["window"]["best"]["goodput_rps"]
    span_s = (reqs[-1].arrival - reqs[0].arrival) / 1000.0
    return {"requests": len(reqs), "offered_rps": round(len(reqs) / span_s, 1),
            "adaptive": {"max_batch": max_batch, "slo_p99_ms": slo_ms, **ad},
            "fixed": fixed, "best_fixed_policy": best_name,
            "adaptive_vs_best_fixed": round(ad["goodput_rps"] / best, 3) if best else None,
            "adaptive_vs_window_best": round(ad["goodput_rps"] / win, 3) if win else None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="labsupport bench adaptive", description=__doc__)
    ap.add_argument("--slo-ms", type=float, default=50.0, help="per-request deadline (ms)")
    ap.add_argument("--fixed-ms", type=float, default=ServiceModel.fixed_ms)
    ap.add_argument("--per-item-ms", type=float, default=ServiceModel.per_item_ms)
    ap.add_argument("--per-token-ms", type=float, default=ServiceModel.per_token_ms)
    ap.add_argument("--max-batch", type=int, default=64, help="adaptive's cap (the grid's top)")
    ap.add_argument("--loads", default="0.5,0.8,1.1,1.4",
                    help="mean offered loads, as shares of the capacity at max_batch 32 "
                    "(rows padded to 64 tokens)")
    ap.add_argument("--n", type=int, default=8_000, help="requests per workload and load")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="tiny input and grid (smoke test)")
    a = ap.parse_args(argv)
    model = ServiceModel(a.fixed_ms, a.per_item_ms, a.per_token_ms)
    check_float("slo_ms", a.slo_ms, 0.1, 60_000.0)
    check_int("max_batch", a.max_batch, 1, 4096)
    check_int("n", a.n, 2)
    try:
        loads = [check_float("loads", float(x), 0.0, 10.0, lo_open=True)
                 for x in a.loads.split(",")]
    except ValueError as exc:
        ap.error(f"--loads: comma-separated shares of capacity in (0, 10]: {exc}")
    batches, delays = ((4, 16, 32), (0.0, 2.0, 10.0)) if a.quick else (
        (4, 8, 16, 32, 64), (0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 40.0))
    n = min(a.n, 400) if a.quick else a.n
    loads = loads[:1] if a.quick else loads
    cap = model.capacity(32, 32 * LONGEST)
    t0 = time.perf_counter()
    out: dict = {"model": {"fixed_ms": model.fixed_ms, "per_item_ms": model.per_item_ms,
                           "per_token_ms": model.per_token_ms},
                 "slo_ms": a.slo_ms, "capacity_rps_at_32": round(cap, 1),
                 "grid": {"policies": list(FIXED), "max_batch": list(batches),
                          "max_delay_ms": list(delays)},
                 "trace_source": load_trace().source, "workloads": {}, "goals": GOALS}
    for kind in ("bursty", "trace"):
        for load in loads:
            reqs = workload(kind, n, load * cap, a.seed)
            out["workloads"][f"{kind}@{load:g}"] = compare(reqs, model, a.slo_ms, a.max_batch,
                                                           batches, delays)
    w = out["workloads"].values()
    out["met"] = {"adaptive_vs_best_fixed": all(x["adaptive_vs_best_fixed"] >= 1.0 for x in w),
                  "adaptive_vs_window_best": all(x["adaptive_vs_window_best"] >= 1.3 for x in w)}
    out["seconds"] = round(time.perf_counter() - t0, 2)
    out["load_avg"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=2))
    return 0
