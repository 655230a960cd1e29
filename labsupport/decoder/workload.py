"""Decode workloads: arrivals and prompt/output lengths from the Azure conversation trace
(``labsupport.traffic.load_trace``: the real file when present, else the synthetic one),
scaled to the small model; prompts are seeded random token ids.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..traffic import Request, Trace, load_trace, replay
from ..validate import check_float, check_int

# Scaled to the tiny GPT-2 (n_positions 512): prompts /32 (median ~1000 -> ~32 tokens),
# outputs /4 (median ~130 -> ~32 tokens, the trace's long tail kept up to 160).
SCALE = dict(length_scale=1 / 32, max_length=192, output_scale=1 / 4, max_output=160)


def trace_requests(n: int = 96, *, rate_scale: float = 8.0, start: int = 0, seed: int = 0,
                   mix: bool = True, vocab_size: int = 1000, trace: Trace | None = None,
                   **scale) -> list[Request]:
    """``n`` requests: arrivals of ``trace[start:start+n]`` (``rate_scale``× faster); lengths
    of ``n`` rows drawn at random (``seed``) from the *whole* trace when ``mix`` (the trace's
    overall length mix: a single window can be much more uniform), else of the same window.
    Each ``payload`` is a prompt of ``length`` token ids; ``output_len`` is the trace's
    (scaled) generated-token count."""
    trace = trace if trace is not None else load_trace()
    if mix:
        rng = np.random.default_rng(seed)
        idx = np.sort(rng.choice(len(trace), size=min(n, len(trace)), replace=False))
        trace = Trace(trace.arrival_ms[start:start + len(idx)], trace.context_tokens[idx],
                      trace.generated_tokens[idx], trace.source)
        start = 0
    reqs = replay(trace, n=n, start=start, rate_scale=rate_scale, **{**SCALE, **scale})
    return with_prompts(reqs, seed=seed, vocab_size=vocab_size)


def with_prompts(reqs: list[Request], *, seed: int = 0, vocab_size: int = 1000) -> list[Request]:
    """Give every request a seeded random prompt of ``length`` token ids (in place)."""
    check_int("vocab_size", vocab_size, 2)
    rng = np.random.default_rng(seed)
    for r in reqs:
        r.payload = rng.integers(0, vocab_size, r.length).tolist()
    return reqs


def at_rate(reqs: list[Request], rate_per_s: float) -> list[Request]:
    """Copies of ``reqs`` whose arrivals are stretched or squeezed (same order, same shape of
    the gaps) to a mean rate of ``rate_per_s`` (requests/s, > 0) over the span (first to last
    arrival), the first at t = 0; ``math.inf`` puts every arrival at t = 0 (a backlog: what a
    server sustains). A deadline keeps its distance from its arrival (ms)."""
    if rate_per_s != math.inf:
        check_float("rate_per_s", rate_per_s, 0.0, lo_open=True)
    t = np.array([r.arrival for r in reqs], float)
    if len(t) < 2 or not np.ptp(t) > 0:
        raise ValueError(f"reqs must hold at least two requests arriving at different times "
                         f"(got {len(t)} request(s) spanning {np.ptp(t) if len(t) else 0.0} ms)")
    scale = 0.0 if rate_per_s == math.inf else (len(t) - 1) * 1000.0 / (rate_per_s * np.ptp(t))
    out = []
    for r, a in zip(reqs, t):
        arrival = float((a - t.min()) * scale)
        deadline = None if r.deadline is None else arrival + (r.deadline - r.arrival)
        out.append(replace(r, arrival=arrival, deadline=deadline))
    return out


def uniform_requests(n: int, prompt_len: int, output_len: int, *, seed: int = 0,
                     vocab_size: int = 1000) -> list[Request]:
    """``n`` requests all present at t = 0 with equal lengths: where continuous batching
    has nothing to repack."""
    reqs = [Request(i, 0.0, check_int("prompt_len", prompt_len, 1),
                    check_int("output_len", output_len, 1)) for i in range(n)]
    return with_prompts(reqs, seed=seed, vocab_size=vocab_size)


def shared_prefix_requests(n: int, prefix_len: int = 96, *, suffix_len: tuple[int, int] = (8, 32),
                           output_len: tuple[int, int] = (8, 32), prefixes: int = 1,
                           gap_ms: float = 0.0, seed: int = 0,
                           vocab_size: int = 1000) -> list[Request]:
    """``n`` requests whose prompts start with one of ``prefixes`` shared prefixes of
    ``prefix_len`` tokens (a RAG system prompt, a few-shot template) followed by a private
    suffix; suffix and output lengths uniform in the given (low, high) ranges, inclusive;
    arrivals ``gap_ms`` apart on average (Poisson; 0: all at t = 0)."""
    check_int("n", n, 1)
    check_int("prefix_len", prefix_len, 1)
    check_int("prefixes", prefixes, 1)
    check_float("gap_ms", gap_ms, 0.0)
    for name, (lo, hi) in (("suffix_len", suffix_len), ("output_len", output_len)):
        check_int(f"{name}[1]", hi, check_int(f"{name}[0]", lo, 1))
    rng = np.random.default_rng(seed)
    heads = [rng.integers(0, vocab_size, prefix_len).tolist() for _ in range(prefixes)]
    t = np.cumsum(rng.exponential(gap_ms, n)) if gap_ms > 0 else np.zeros(n)
    reqs = []
    for i in range(n):
        tail = rng.integers(0, vocab_size, int(rng.integers(suffix_len[0], suffix_len[1] + 1)))
        prompt = heads[i % prefixes] + tail.tolist()
        reqs.append(Request(i, float(t[i]), len(prompt),
                            int(rng.integers(output_len[0], output_len[1] + 1)), prompt))
    return reqs


def synthetic_code_trace(n: int = 2000, *, seed: int = 0) -> Trace:
    """A trace shaped like Azure's 2023 *code* trace: long prompts (lognormal, median 1500
    tokens, clipped to 3..7500) and short outputs (lognormal, median 13, p90 ~55, clipped to
    1..1000); gaps as the conversation trace's (gamma, mean 181 ms, CV 1.09). Replay it
    with ``trace_requests(trace=...)`` to scale it to the small model like the
    conversation trace."""
    check_int("n", n, 1)
    rng = np.random.default_rng(seed)
    shape = 1 / 1.094 ** 2
    t = np.concatenate([[0.0], np.cumsum(rng.gamma(shape, 180.8 / shape, n - 1))])
    ctx = np.clip(np.round(rng.lognormal(np.log(1500), 0.6, n)), 3, 7500).astype(int)
    # p90 / median = 55 / 13 -> sigma = ln(55 / 13) / z_0.9
    gen = np.clip(np.round(rng.lognormal(np.log(13), np.log(55 / 13) / 1.2816, n)), 1,
                  1000).astype(int)
    return Trace(t, ctx, gen, "synthetic code-shaped")
