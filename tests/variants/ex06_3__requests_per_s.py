def head_to_head(requests, run, **knobs):
    """Tokens/s of both engines on the same requests and knobs, and their ratio."""
    out = {}
    for mode in ("continuous", "request"):
        res = run(requests, mode=mode, **knobs)
        span = max(s.finish for s in res.sequences) - min(s.arrival for s in res.sequences)
        out[f"{mode}_tps"] = 1000.0 * len(res.sequences) / span  # bug: requests, not tokens
    out["speedup"] = out["continuous_tps"] / out["request_tps"]
    return out
