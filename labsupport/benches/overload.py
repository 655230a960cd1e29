"""``labsupport bench overload``: how fast the service turns work away, and how long the
work it accepts waits, against a fake-model service on 127.0.0.1.

The fake model sleeps 40 ms + 5 ms per text with ``max_batch`` 4 and ``max_queue`` 32, so
its capacity (≈ 67 texts/s) is low enough for a Python client on 2 cores to offer 10× that.
Two runs, one after the other: half of capacity (``--n`` requests), then 10× capacity for
2 s. Prints JSON: the server's mean time to decide a 429 (from its own
``lab_rejection_latency_ms`` counters), the accepted requests' p50/p99 against the bound a
full queue sets (``max_queue / capacity``), the load average before and after.
Goals: a 429 decided within 5 ms; under overload p99 within 2 × the queue bound + 500 ms;
at half load p99 under 1 s. The tests check only what must hold on any machine (nothing
lost, most of an overload turned away, the queue bounded): ``tests/serving/ops/test_loadgen.py``.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os

from ..costs import ServiceModel
from ..serving.ops import loadgen
from ..serving.ops.launcher import start_service
from ..validate import check_int

FIXED_MS, PER_ITEM_MS, MAX_BATCH, MAX_QUEUE = 40.0, 5.0, 4, 32
CAPACITY_RPS = 1000.0 * MAX_BATCH / (FIXED_MS + PER_ITEM_MS * MAX_BATCH)
GOAL_REJECT_MS = 5.0
GOAL_HALF_P99_MS = 1000.0


def _delta(after: dict, before: dict) -> dict:
    return {k: v - before.get(k, 0) for k, v in after.items()}


def run(n: int = 60, seed: int = 1) -> dict:
    """Measure; returns the JSON-able result."""
    check_int("n", n, 1)
    load0 = os.getloadavg()
    svc = start_service("fake", max_batch=MAX_BATCH, max_delay_ms=5.0, max_queue=MAX_QUEUE,
                        fake=ServiceModel(FIXED_MS, PER_ITEM_MS), timeout_s=60)
    try:
        half = asyncio.run(loadgen.run_load(
            svc.url, loadgen.schedule("poisson", CAPACITY_RPS / 2, n, seed=seed))).summary()
        before = svc.metrics()
        reqs = loadgen.schedule("poisson", 10 * CAPACITY_RPS, int(20 * CAPACITY_RPS), seed=seed)
        over = asyncio.run(loadgen.run_load(svc.url, reqs, max_duration_s=2.0, timeout_s=30)).summary()
        d = _delta(svc.metrics(), before)
    finally:
        svc.stop()
    n_rej = d.get("lab_rejection_latency_ms_count", 0)
    reject_ms = d["lab_rejection_latency_ms_sum"] / n_rej if n_rej else float("nan")
    bound_ms = 1000.0 * MAX_QUEUE / CAPACITY_RPS
    p99_over, p99_half = over["latency_ms"]["p99"], half["latency_ms"]["p99"]
    return {
        "bench": "overload", "cpus": os.cpu_count(), "loadavg_before": load0,
        "service": {"fixed_ms": FIXED_MS, "per_item_ms": PER_ITEM_MS, "max_batch": MAX_BATCH,
                    "max_queue": MAX_QUEUE, "capacity_rps": round(CAPACITY_RPS, 1)},
        "half_load": {"sent": half["sent"], "ok": half["ok"], "latency_ms": half["latency_ms"],
                      "goal_p99_ms": GOAL_HALF_P99_MS,
                      "meets_goal": p99_half is not None and p99_half < GOAL_HALF_P99_MS},
        "overload_10x": {"sent": over["sent"], "ok": over["ok"], "rejected": over["rejected"],
                         "errors": over["errors"], "latency_ms": over["latency_ms"],
                         "queue_bound_ms": round(bound_ms, 1),
                         "goal_p99_ms": 2 * bound_ms + 500,
                         "meets_p99_goal": p99_over is not None and p99_over < 2 * bound_ms + 500,
                         "server_reject_mean_ms": round(reject_ms, 3),
                         "goal_reject_ms": GOAL_REJECT_MS,
                         "meets_reject_goal": reject_ms < GOAL_REJECT_MS},
        "loadavg_after": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="labsupport bench overload", description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=60, help="requests at half load (default 60)")
    p.add_argument("--seed", type=int, default=1, help="arrival seed")
    args = p.parse_args(argv)
    try:
        result = run(args.n, args.seed)
    except ValueError as err:
        p.error(str(err))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
