"""Notebook 07's replicas section: M/G/c theory against the replica simulator, a small
delay against going at once, and the tail latency of each routing choice under bursts.

Every function runs the virtual-clock replica simulator (``sim.simulate_replicas``) and
returns rows (dicts) that the notebook prints and plots. Times are ms; rates are requests
per second.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...batching.routing import ROUTINGS
from ...costs import ServiceModel
from ...projector import drawing
from ...queueing import mgc_wait_ms
from ...sim.simulator import simulate_replicas
from ...traffic import bursty, poisson

# one request per batch, 4 ms + 0.05 ms per token: service time varies with the length
THEORY_SERVICE = ServiceModel(fixed_ms=4.0, per_item_ms=0.0, per_token_ms=0.05)
THEORY_LENGTHS = np.array([8, 16, 24, 32, 48, 64, 96, 128, 192, 256])  # tokens, drawn uniformly
BATCH_SERVICE = ServiceModel()  # the lab's toy model


def service_moments(service: ServiceModel = THEORY_SERVICE, lengths=THEORY_LENGTHS):
    """Mean service time (ms) and its squared coefficient of variation, one item per batch."""
    s = np.array([service.cost(1, int(n)) for n in lengths])
    return float(s.mean()), float(s.var() / s.mean() ** 2)


def theory_vs_sim(servers=(1, 2, 4), loads=(0.5, 0.7, 0.85), n: int = 6000,
                  seed: int = 0) -> list[dict]:
    """Mean wait (ms): M/G/c (one shared queue) against the simulated router + replicas."""
    mean_s, cv2 = service_moments()
    rows = []
    for c in servers:
        for rho in loads:
            rate = rho * c * 1000.0 / mean_s
            traffic = poisson(rate, n, seed=seed, lengths=THEORY_LENGTHS)
            row = {"replicas": c, "load": rho, "rate_per_s": round(rate, 1),
                   "theory_wait_ms": mgc_wait_ms(rate, mean_s, c, cv2)}
            for routing in ROUTINGS:
                res = simulate_replicas(traffic, c, routing, max_batch=1,
                                        service=THEORY_SERVICE, seed=seed)
                row[f"{routing}_wait_ms"] = float(np.mean(res.start - res.arrival))
            rows.append(row)
    return rows


def delay_sweep(replicas: int = 4, rates=(800, 1600, 2400), delays=(0.0, 1.0, 2.0, 4.0),
                routing: str = "least_outstanding", burstiness: float = 6.0, n: int = 8000,
                seed: int = 3) -> list[dict]:
    """Batching replicas: go at once when idle (``work_conserving``, delay 0) against waiting
    up to ``delay`` ms for a fuller batch (``early``). Latency p50/p99 (ms), mean batch."""
    rows = []
    for rate in rates:
        traffic = bursty(rate, n, burstiness=burstiness, period_ms=300.0, seed=seed)
        for d in delays:
            policy = "work_conserving" if d == 0 else "early"
            res = simulate_replicas(traffic, replicas, routing, policy=policy,
                                    service=BATCH_SERVICE, max_batch=32, max_delay_ms=d or 1.0)
            lat = res.latency
            rows.append({"rate_per_s": rate, "delay_ms": d, "p50_ms": float(np.percentile(lat, 50)),
                         "p99_ms": float(np.percentile(lat, 99)),
                         "mean_batch": float(res.batch_size.mean())})
    return rows


def routing_tails(replicas: int = 4, rate: float = 400.0, burstiness: float = 3.0,
                  n: int = 8000, seed: int = 5) -> list[dict]:
    """Each routing choice under bursty traffic of mixed lengths (padded-token cost)."""
    service = replace(BATCH_SERVICE, per_token_ms=0.01)  # the toy model, paying for padding
    traffic = bursty(rate, n, burstiness=burstiness, period_ms=300.0, seed=seed,
                     lengths=THEORY_LENGTHS)
    rows = []
    for routing in ROUTINGS:
        lat = simulate_replicas(traffic, replicas, routing, service=service, max_batch=32,
                                max_delay_ms=2.0, seed=seed).latency
        rows.append({"routing": routing, "p50_ms": float(np.percentile(lat, 50)),
                     "p99_ms": float(np.percentile(lat, 99)),
                     "p999_ms": float(np.percentile(lat, 99.9))})
    return rows


def show(rows: list[dict], digits: int = 2) -> None:
    """Print rows as an aligned table."""
    keys = list(rows[0])
    fmt = lambda v: f"{v:.{digits}f}" if isinstance(v, float) else str(v)  # noqa: E731
    cells = [[fmt(r[k]) for k in keys] for r in rows]
    width = [max(len(k), *(len(c[i]) for c in cells)) for i, k in enumerate(keys)]
    print("  ".join(k.rjust(w) for k, w in zip(keys, width)))
    for c in cells:
        print("  ".join(v.rjust(w) for v, w in zip(c, width)))


def plot(theory: list[dict], tails: list[dict]):
    """Left: mean wait, theory (lines) against the simulated least-outstanding router
    (dots). Right: p99 and p99.9 per routing choice. A pyplot-free Figure, projector sizes
    (show it with ``display(projector.image(fig))``)."""
    with drawing() as st:
        fig = st.figure(4.8)
        a, b = fig.subplots(1, 2)
        for c in sorted({r["replicas"] for r in theory}):
            rs = [r for r in theory if r["replicas"] == c]
            x = [r["load"] for r in rs]
            line, = a.plot(x, [r["theory_wait_ms"] for r in rs], label=f"M/G/{c}")
            a.plot(x, [r["least_outstanding_wait_ms"] for r in rs], "o", color=line.get_color())
        a.set(xlabel="load ρ", ylabel="mean wait (ms)", title="lines: theory · dots: sim")
        a.legend(loc="upper left")
        x = np.arange(len(tails))
        b.bar(x - 0.2, [r["p99_ms"] for r in tails], 0.4, label="p99")
        b.bar(x + 0.2, [r["p999_ms"] for r in tails], 0.4, label="p99.9")
        b.set_xticks(x, [r["routing"].replace("_", "\n") for r in tails])
        b.set(ylabel="latency (ms)", title="bursty load: tail per routing")
        b.set_ylim(0, 1.35 * max(r["p999_ms"] for r in tails))
        b.legend(loc="upper left", ncols=2)
        fig.subplots_adjust(left=0.09, right=0.99, top=0.9, bottom=0.2, wspace=0.3)
        return fig
