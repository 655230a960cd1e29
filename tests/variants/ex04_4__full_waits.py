def dispatch_at(now_ms, oldest_arrival_ms, n_waiting, max_batch, slo_ms, predict_ms):
    """When the batch should start (ms)."""
    # bug: never dispatches a full batch early (max_batch ignored)
    return max(now_ms, oldest_arrival_ms + slo_ms - predict_ms(n_waiting))
