"""Request records and arrival processes: Poisson, bursty (on/off), closed loop, trace replay.

All times are milliseconds from the start of the run. Every generator is seeded.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .paths import trace_path
from .validate import check_float, check_int


@dataclass(slots=True)
class Request:
    """One inference request. ``length``: input tokens; ``output_len``: tokens to generate."""
    id: int
    arrival: float  # ms
    length: int = 1
    output_len: int = 1
    payload: Any = None
    deadline: float | None = None  # absolute ms, or None for no deadline


def _records(arrivals, lengths, outputs, slo_ms) -> list[Request]:
    return [Request(i, float(a), int(l), int(o), None,
                    None if slo_ms is None else float(a) + slo_ms)
            for i, (a, l, o) in enumerate(zip(arrivals, lengths, outputs))]


def _lengths(n: int, lengths, rng) -> np.ndarray:
    if lengths is None:
        return np.ones(n, dtype=int)
    if callable(lengths):
        return np.asarray(lengths(n, rng), dtype=int)
    return rng.choice(np.asarray(lengths, dtype=int), size=n)


def poisson(rate_per_s: float, n: int, *, seed: int = 0, lengths=None,
            slo_ms: float | None = None) -> list[Request]:
    """``n`` open-loop arrivals at ``rate_per_s``; ``lengths`` a pool to sample or ``f(n, rng)``."""
    check_float("rate_per_s", rate_per_s, 0.0, lo_open=True)
    check_int("n", n, 0)
    rng = np.random.default_rng(seed)
    arrivals = np.cumsum(rng.exponential(1000.0 / rate_per_s, n))
    return _records(arrivals, _lengths(n, lengths, rng), np.ones(n, int), slo_ms)


def bursty(rate_per_s: float, n: int, *, burstiness: float = 4.0, period_ms: float = 200.0,
           seed: int = 0, lengths=None, slo_ms: float | None = None) -> list[Request]:
    """On/off arrivals with mean ``rate_per_s``: ON a 1/``burstiness`` share of the time at
    ``burstiness`` × the rate, OFF otherwise. ``burstiness=1`` is plain Poisson.
    ``period_ms``: mean length of one ON+OFF cycle."""
    check_float("rate_per_s", rate_per_s, 0.0, lo_open=True)
    check_float("burstiness", burstiness, 1.0)
    check_float("period_ms", period_ms, 0.0, lo_open=True)
    check_int("n", n, 0)
    rng = np.random.default_rng(seed)
    if burstiness == 1.0:
        arrivals = np.cumsum(rng.exponential(1000.0 / rate_per_s, n))
    else:
        on_rate = rate_per_s * burstiness / 1000.0  # per ms while ON
        mean_on, mean_off = period_ms / burstiness, period_ms * (1 - 1 / burstiness)
        out, t = [], 0.0
        while len(out) < n:
            on = rng.exponential(mean_on)
            k = rng.poisson(on * on_rate)
            out.extend(np.sort(t + rng.uniform(0, on, k)))
            t += on + rng.exponential(mean_off)
        arrivals = np.asarray(out[:n])
    return _records(arrivals, _lengths(n, lengths, rng), np.ones(n, int), slo_ms)


@dataclass(frozen=True)
class ClosedLoop:
    """``clients`` users, each sending its next request ``think_ms`` after its last answer."""
    clients: int
    n: int
    think_ms: float = 0.0
    length: int = 1

    def __post_init__(self):
        check_int("clients", self.clients, 1)
        check_int("n", self.n, 0)
        check_float("think_ms", self.think_ms, 0.0)
        check_int("length", self.length, 1)


# ---- traces -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Trace:
    """A request trace: arrival (ms from the first request), prompt and output tokens."""
    arrival_ms: np.ndarray
    context_tokens: np.ndarray
    generated_tokens: np.ndarray
    source: str

    def __len__(self) -> int:
        return len(self.arrival_ms)

    @property
    def rate_per_s(self) -> float:
        span = self.arrival_ms[-1] - self.arrival_ms[0]
        return 1000.0 * (len(self) - 1) / span if span > 0 else float("inf")


def load_trace(path: str | Path | None = None) -> Trace:
    """Read a ``TIMESTAMP,ContextTokens,GeneratedTokens`` CSV (Azure LLM inference trace 2023).

    ``path=None`` takes ``../shared/data`` when present, else the shipped synthetic trace."""
    path = Path(path) if path is not None else trace_path()
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise ValueError(f"trace {path} has no rows")
    stamps = [r["TIMESTAMP"] for r in rows]
    try:
        t = np.array([float(s) for s in stamps])
    except ValueError:  # wall-clock stamps with 7 fractional digits
        t = np.array([datetime.fromisoformat(s[:26]).timestamp() for s in stamps]) * 1000.0
    order = np.argsort(t, kind="stable")
    t = t[order]
    ctx = np.array([int(r["ContextTokens"]) for r in rows])[order]
    gen = np.array([int(r["GeneratedTokens"]) for r in rows])[order]
    return Trace(t - t[0], ctx, gen, str(path))


def replay(trace: Trace, *, n: int | None = None, start: int = 0, rate_scale: float = 1.0,
           length_scale: float = 1.0, max_length: int | None = None,
           output_scale: float = 1.0, max_output: int | None = None,
           slo_ms: float | None = None) -> list[Request]:
    """Requests from ``trace[start:start+n]``: arrivals compressed ``rate_scale``× in time
    (2.0 = twice the rate), prompt/output tokens scaled and clipped to fit a small model."""
    check_float("rate_scale", rate_scale, 0.0, lo_open=True)
    check_float("length_scale", length_scale, 0.0, lo_open=True)
    check_float("output_scale", output_scale, 0.0, lo_open=True)
    check_int("start", start, 0, max(len(trace) - 1, 0))
    stop = len(trace) if n is None else min(len(trace), start + check_int("n", n, 0))
    t = trace.arrival_ms[start:stop]
    t = (t - (t[0] if len(t) else 0.0)) / rate_scale
    ctx = np.maximum(1, np.round(trace.context_tokens[start:stop] * length_scale)).astype(int)
    gen = np.maximum(1, np.round(trace.generated_tokens[start:stop] * output_scale)).astype(int)
    if max_length is not None:
        ctx = np.minimum(ctx, check_int("max_length", max_length, 1))
    if max_output is not None:
        gen = np.minimum(gen, check_int("max_output", max_output, 1))
    return _records(t, ctx, gen, slo_ms)


def synthetic_trace(n: int = 2000, *, seed: int = 0) -> Trace:
    """A trace with the Azure conversation trace's shape (fitted 2026-12 from the real file):
    gamma gaps (mean 181 ms, CV 1.09), lognormal prompts (median ~760 tokens, clipped to
    2..14050) and outputs (median ~150 tokens, clipped to 7..1000)."""
    rng = np.random.default_rng(seed)
    shape = 1 / 1.094 ** 2
    gaps = rng.gamma(shape, 180.8 / shape, n)
    t = np.concatenate([[0.0], np.cumsum(gaps[1:])])
    ctx = np.clip(np.round(rng.lognormal(6.633, 0.985, n)), 2, 14050).astype(int)
    gen = np.clip(np.round(rng.lognormal(5.019, 0.859, n)), 7, 1000).astype(int)
    return Trace(t, ctx, gen, "synthetic")


def write_trace(trace: Trace, path: str | Path) -> None:
    """Write ``trace`` as CSV; TIMESTAMP in ms from the start."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["TIMESTAMP", "ContextTokens", "GeneratedTokens"])
        for a, c, g in zip(trace.arrival_ms, trace.context_tokens, trace.generated_tokens):
            w.writerow([f"{a:.3f}", int(c), int(g)])


if __name__ == "__main__":  # regenerate the shipped synthetic twin: python -m labsupport.traffic
    from .paths import SYNTHETIC_TRACE
    write_trace(synthetic_trace(), SYNTHETIC_TRACE)
    print(f"wrote {SYNTHETIC_TRACE}")
