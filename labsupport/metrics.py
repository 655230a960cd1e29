"""Latency and throughput summaries (numpy): percentiles, goodput, utilisation, knee."""
from __future__ import annotations

import numpy as np

PCTS = (50, 90, 99)


def percentiles(x, pcts=PCTS) -> dict[str, float]:
    """``{"p50": …, "p90": …, "p99": …}`` of ``x`` (nan when empty)."""
    x = np.asarray(x, float)
    x = x[~np.isnan(x)]
    if not len(x):
        return {f"p{p}": float("nan") for p in pcts}
    return {f"p{p}": float(v) for p, v in zip(pcts, np.percentile(x, pcts))}


def throughput(arrival, finish) -> float:
    """Completed requests per second over the span from first arrival to last finish (ms)."""
    arrival, finish = np.asarray(arrival, float), np.asarray(finish, float)
    done = ~np.isnan(finish)
    if not done.any():
        return 0.0
    span = finish[done].max() - arrival.min()
    return 1000.0 * done.sum() / span if span > 0 else float("inf")


def goodput(arrival, finish, slo_ms: float) -> float:
    """Requests per second that finished within ``slo_ms`` of their arrival."""
    arrival, finish = np.asarray(arrival, float), np.asarray(finish, float)
    ok = (finish - arrival) <= slo_ms
    span = np.nanmax(finish) - arrival.min()
    return 1000.0 * ok.sum() / span if span > 0 else 0.0


def utilisation(batch_start, batch_end, t0: float, t1: float) -> float:
    """Share of [t0, t1] ms during which the executor ran a batch."""
    busy = np.clip(np.minimum(batch_end, t1) - np.maximum(batch_start, t0), 0, None).sum()
    return float(busy / (t1 - t0)) if t1 > t0 else 0.0


def padding_share(padded_tokens, real_tokens) -> float:
    """Share of computed tokens that are padding: 1 − real / padded."""
    p, r = float(np.sum(padded_tokens)), float(np.sum(real_tokens))
    return 1.0 - r / p if p > 0 else 0.0


def summarize(res, slo_ms: float | None = None) -> dict[str, float]:
    """One-line summary of a ``SimResult`` (or anything with the same fields)."""
    lat = res.latency
    out = {"requests": int(len(lat)), "batches": int(len(res.batch_size)),
           "mean_batch": float(np.mean(res.batch_size)) if len(res.batch_size) else 0.0,
           "throughput_rps": throughput(res.arrival, res.finish),
           "utilisation": utilisation(res.batch_start, res.batch_end,
                                      float(np.min(res.arrival)), float(np.max(res.finish))),
           "mean_ms": float(np.mean(lat)),
           **{f"{k}_ms": v for k, v in percentiles(lat).items()},
           "window_wait_ms": float(np.mean(res.window_wait)),
           "executor_wait_ms": float(np.mean(res.executor_wait)),
           "padding_share": padding_share(res.batch_padded, res.batch_real)}
    if slo_ms is not None:
        out["goodput_rps"] = goodput(res.arrival, res.finish, slo_ms)
        out["slo_met"] = float(np.mean(lat <= slo_ms))
    return out


def find_knee(x, y) -> int:
    """Index of the knee of a curve (largest distance from the chord between its ends,
    after scaling both axes to [0, 1]); for latency-vs-delay sweeps and load curves."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 3:
        raise ValueError("find_knee needs at least 3 points")
    xn = (x - x.min()) / (np.ptp(x) or 1.0)
    yn = (y - y.min()) / (np.ptp(y) or 1.0)
    dx, dy = xn[-1] - xn[0], yn[-1] - yn[0]
    dist = np.abs(dy * xn - dx * yn + xn[-1] * yn[0] - yn[-1] * xn[0]) / (np.hypot(dx, dy) or 1)
    return int(np.argmax(dist))
