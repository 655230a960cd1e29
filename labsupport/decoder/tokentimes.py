"""Serving metrics from per-token timestamps (vLLM's definitions; times in ms):

- TTFT (time to first token) = first token − arrival (queueing and prefill included);
- ITL (inter-token latency) = the gaps between one request's consecutive tokens;
- TPOT (time per output token) = (last − first token) / (tokens − 1): a request's mean ITL
  (NaN for a one-token answer);
- E2E = last token − arrival;
- tokens/s = all generated tokens / (last token of all − first arrival);
- goodput = requests/s that met both SLOs (TTFT ≤ slo_ttft_ms and TPOT ≤ slo_tpot_ms; a
  one-token answer meets any TPOT SLO), over the same span.
"""
from __future__ import annotations

import numpy as np


def token_metrics(arrivals, token_times, slo_ttft_ms: float | None = None,
                  slo_tpot_ms: float | None = None) -> dict:
    """``arrivals[i]`` (ms) and ``token_times[i]`` (ms of each generated token) of request
    ``i`` -> per-request arrays ``ttft``, ``tpot``, ``e2e``, ``out``, all ``itl`` gaps, and
    ``tokens_per_s``, ``goodput_rps`` (NaN without SLOs)."""
    if len(arrivals) != len(token_times) or not len(arrivals):
        raise ValueError("arrivals and token_times must hold one entry per request (>= 1)")
    if any(len(t) == 0 for t in token_times):
        raise ValueError("token_times: every request needs at least one token time")
    arrival = np.asarray(arrivals, float)
    first = np.array([t[0] for t in token_times], float)
    last = np.array([t[-1] for t in token_times], float)
    out = np.array([len(t) for t in token_times])
    tpot = np.where(out > 1, (last - first) / np.maximum(out - 1, 1), np.nan)
    span = last.max() - arrival.min()
    ok = np.ones(len(out), bool)
    if slo_ttft_ms is not None:
        ok &= first - arrival <= slo_ttft_ms
    if slo_tpot_ms is not None:
        ok &= np.nan_to_num(tpot, nan=0.0) <= slo_tpot_ms
    has_slo = slo_ttft_ms is not None or slo_tpot_ms is not None
    return {"ttft": first - arrival, "tpot": tpot, "e2e": last - arrival, "out": out,
            "itl": np.concatenate([np.diff(np.asarray(t, float)) for t in token_times]),
            "tokens_per_s": 1000.0 * out.sum() / span if span > 0 else float("nan"),
            "goodput_rps": (1000.0 * ok.sum() / span if span > 0 else 0.0) if has_slo
            else float("nan")}
