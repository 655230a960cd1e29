from labsupport.exercises.ex04 import p99_bucketed, slo_traffic


def pick_knobs(service, rate_per_s, slo_ms):
    """Bucketed-policy knobs whose p99 meets slo_ms on every set of slo_traffic(rate)."""
    sets = slo_traffic(rate_per_s)[::2]  # bug: tuned on the Poisson sets only
    for max_batch in (1, 2, 4, 8, 16, 32, 64, 128, 256):
        for delay in (5.0, 20.0, 100.0):
            if all(p99_bucketed(service, tr, max_batch, delay) <= slo_ms for tr in sets):
                return {"max_batch": max_batch, "max_delay_ms": delay}
    raise ValueError("no knobs meet the SLO")
