# Bug: np.percentile takes percent (0-100); 0.99 asks for the 0.99th percentile.
import numpy as np

from labsupport import simulate


def p99_vs_delay(requests, delays_ms, *, policy, max_batch, service):
    return np.array([np.percentile(simulate(requests, policy, service, max_batch=max_batch,
                                            max_delay_ms=float(d)).latency, 0.99)
                     for d in delays_ms])
