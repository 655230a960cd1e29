# honest: ragged_mask built one sequence block at a time with np.tril on the block's right part
# target: ex06_9
import numpy as np


def ragged_mask(spans):
    """Block-diagonal causal mask of a packed step: [sum new, sum (cached + new)]."""
    spans = list(spans)
    rows = sum(n for _, n in spans)
    cols = sum(c + n for c, n in spans)
    out = np.zeros((rows, cols), dtype=bool)
    r0 = c0 = 0
    for cached, new in spans:
        block = np.ones((new, cached + new), dtype=bool)
        block[:, cached:] = np.tril(np.ones((new, new), dtype=bool))
        out[r0:r0 + new, c0:c0 + cached + new] = block
        r0 += new
        c0 += cached + new
    return out
