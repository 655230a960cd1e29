# Bug: adds latencies (waiting included) instead of the model's busy time.
import numpy as np


def utilisation(res):
    return float(np.sum(res.finish - res.arrival) / (np.max(res.finish) - np.min(res.arrival)))
