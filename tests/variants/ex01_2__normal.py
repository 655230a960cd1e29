# Bug: assumes latency is normally distributed (it is skewed, with a long tail).
import numpy as np


def latency_percentiles(res):
    lat = res.finish - res.arrival
    return {"p50": float(np.mean(lat)), "p99": float(np.mean(lat) + 2.326 * np.std(lat))}
