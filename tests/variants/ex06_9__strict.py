import numpy as np


def ragged_mask(spans):
    """Bug: strictly earlier keys only: a token does not see itself."""
    n_q = sum(new for _, new in spans)
    n_k = sum(cached + new for cached, new in spans)
    mask = np.zeros((n_q, n_k), dtype=bool)
    q = k = 0
    for cached, new in spans:
        for i in range(new):
            mask[q + i, k:k + cached + i] = True
        q, k = q + new, k + cached + new
    return mask
