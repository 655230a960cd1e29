from labsupport.exercises.ex04 import p99_bucketed, slo_traffic


def pick_knobs(service, rate_per_s, slo_ms):
    """Bucketed-policy knobs whose p99 meets slo_ms on every set of slo_traffic(rate)."""
    return {"max_batch": 1, "max_delay_ms": 5.0}  # bug: "batching only adds latency"
