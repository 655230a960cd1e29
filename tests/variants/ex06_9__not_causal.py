import numpy as np


def ragged_mask(spans):
    """Bug: every token of a chunk sees the whole chunk, later tokens included."""
    n_q = sum(new for _, new in spans)
    n_k = sum(cached + new for cached, new in spans)
    mask = np.zeros((n_q, n_k), dtype=bool)
    q = k = 0
    for cached, new in spans:
        mask[q:q + new, k:k + cached + new] = True
        q, k = q + new, k + cached + new
    return mask
