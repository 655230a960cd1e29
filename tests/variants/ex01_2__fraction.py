# Bug: np.percentile takes percent (0-100), not fractions.
import numpy as np


def latency_percentiles(res):
    p50, p99 = np.percentile(res.finish - res.arrival, [0.5, 0.99])
    return {"p50": float(p50), "p99": float(p99)}
