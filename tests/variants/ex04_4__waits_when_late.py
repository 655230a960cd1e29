def dispatch_at(now_ms, oldest_arrival_ms, n_waiting, max_batch, slo_ms, predict_ms):
    """When the batch should start (ms)."""
    if n_waiting >= max_batch:
        return now_ms
    start = oldest_arrival_ms + slo_ms - predict_ms(n_waiting)
    if start < now_ms:  # bug: a late request gets a fresh wait, past its deadline
        return now_ms + slo_ms - predict_ms(n_waiting)
    return start
