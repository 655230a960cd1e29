import numpy as np


def ragged_mask(spans):
    """Bug: one causal mask over the whole packed row: tokens see other sequences."""
    n_q = sum(new for _, new in spans)
    n_k = sum(cached + new for cached, new in spans)
    mask = np.zeros((n_q, n_k), dtype=bool)
    q = k = 0
    for cached, new in spans:
        for i in range(new):
            mask[q + i, :k + cached + i + 1] = True
        q, k = q + new, k + cached + new
    return mask
