# Bug: the policy argument is ignored, so the simulator uses its default (work_conserving).
import numpy as np

from labsupport import simulate


def p99_vs_delay(requests, delays_ms, *, policy, max_batch, service):
    return np.array([np.percentile(simulate(requests, service=service, max_batch=max_batch,
                                            max_delay_ms=float(d)).latency, 99)
                     for d in delays_ms])
