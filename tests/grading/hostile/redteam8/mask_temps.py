# the lab's packed_mask (= the solution) with a slice bound named first, a sum commuted, the tuple update split in two augmented assignments and dtype passed by position
# target: ex06_9
import numpy as np


def ragged_mask(spans):
    """Block-diagonal causal mask of a packed step: [sum new, sum (cached + new)]."""
    n_q = sum(new for _, new in spans)
    n_k = sum(new + cached for cached, new in spans)
    mask = np.zeros((n_q, n_k), bool)
    q = k = 0
    for cached, new in spans:
        for i in range(new):
            stop = k + cached + i + 1
            mask[q + i, k:stop] = True
        q += new
        k += cached + new
    return mask
