def dispatch_at(now_ms, oldest_arrival_ms, n_waiting, max_batch, slo_ms, predict_ms):
    """When the batch should start (ms)."""
    if n_waiting >= max_batch:
        return now_ms
    return oldest_arrival_ms + slo_ms - predict_ms(n_waiting)  # bug: may be in the past
