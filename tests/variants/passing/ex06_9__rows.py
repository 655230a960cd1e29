# honest: ragged_mask, the block corners found first, then each sequence's block filled with np.tril on its new part
# target: ex06_9
import numpy as np


def ragged_mask(spans):
    """Block-diagonal causal mask of a packed step: [sum new, sum (cached + new)]."""
    corners = []
    rows = cols = 0
    for c, n in spans:
        corners.append((rows, cols, c, n))
        rows += n
        cols += c + n
    out = np.zeros((rows, cols), dtype=bool)
    for r0, c0, cached, new in corners:
        out[r0:r0 + new, c0:c0 + cached] = True
        out[r0:r0 + new, c0 + cached:c0 + cached + new] = np.tril(np.ones((new, new), dtype=bool))
    return out
