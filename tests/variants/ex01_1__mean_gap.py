# Bug: one batch's duration over the mean gap between batches is not the busy share.
import numpy as np


def utilisation(res):
    return float(np.mean(res.batch_end - res.batch_start) / np.mean(np.diff(res.arrival)))
