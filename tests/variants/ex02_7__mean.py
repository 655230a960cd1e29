# Bug: the mean latency instead of the 99th percentile.
import numpy as np

from labsupport import simulate


def p99_vs_delay(requests, delays_ms, *, policy, max_batch, service):
    return np.array([np.mean(simulate(requests, policy, service, max_batch=max_batch,
                                      max_delay_ms=float(d)).latency) for d in delays_ms])
