# Bug: the steepest step is already past the knee.
import numpy as np


def knee_delay(delays_ms, latency_ms):
    return float(np.asarray(delays_ms)[1:][np.argmax(np.diff(latency_ms))])
