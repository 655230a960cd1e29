import numpy as np


def mean_pool(hidden, mask):
    """Mask-weighted mean over positions, then L2-normalise each row: [n, L, d] -> [n, d]."""
    mean = np.asarray(hidden, dtype=np.float64).mean(axis=1)  # bug: mask ignored
    return mean / np.linalg.norm(mean, axis=1, keepdims=True)
