# Bug: measures only the service time, leaving out the time spent queueing.
import numpy as np


def latency_percentiles(res):
    p50, p99 = np.percentile(res.finish - res.start, [50, 99])
    return {"p50": float(p50), "p99": float(p99)}
