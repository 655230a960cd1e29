# Bug: the delay with the lowest latency is not the knee.
import numpy as np


def knee_delay(delays_ms, latency_ms):
    return float(np.asarray(delays_ms)[np.argmin(latency_ms)])
