def dispatch_at(now_ms, oldest_arrival_ms, n_waiting, max_batch, slo_ms, predict_ms):
    """Latest start for the oldest request's SLO; now when full or already past it."""
    latest = oldest_arrival_ms + slo_ms - predict_ms(n_waiting)
    full = n_waiting >= max_batch
    return now_ms if full or latest <= now_ms else latest
