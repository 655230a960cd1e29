# Bug: returns the knee's index, not its delay in ms.
import numpy as np

from labsupport import find_knee


def knee_delay(delays_ms, latency_ms):
    return find_knee(delays_ms, latency_ms)
