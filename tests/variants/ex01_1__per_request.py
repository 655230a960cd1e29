# Bug: adds every request's service time, so a batch's busy time counts once per member.
import numpy as np


def utilisation(res):
    busy = np.sum(res.finish - res.start)
    return float(busy / (np.max(res.finish) - np.min(res.arrival)))
