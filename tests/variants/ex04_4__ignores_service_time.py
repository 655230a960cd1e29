def dispatch_at(now_ms, oldest_arrival_ms, n_waiting, max_batch, slo_ms, predict_ms):
    """When the batch should start (ms)."""
    if n_waiting >= max_batch:
        return now_ms
    return max(now_ms, oldest_arrival_ms + slo_ms)  # bug: waits until the deadline itself
