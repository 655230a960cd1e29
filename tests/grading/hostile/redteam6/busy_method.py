# the executor's busy share from the lab's own SimResult.busy_before (genuine in ex01_1's view, not a reference of it), reached through the argument's type: no new code, no name of the lab in the cell; busy time up to the last finish minus busy time up to the first arrival, per replica, is what metrics.utilisation computes for batches that do not overlap
# target: ex01_1
import numpy as np


def utilisation(res):
    t0, t1 = float(res.arrival.min()), float(res.finish.max())
    busy = type(res).busy_before
    total = 0.0
    for r in np.unique(res.batch_replica):
        total += float(busy(res, np.array([t1]), int(r))[0] - busy(res, np.array([t0]), int(r))[0])
    return total / (t1 - t0)
