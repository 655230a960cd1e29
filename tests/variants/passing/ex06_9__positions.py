import numpy as np


def ragged_mask(spans):
    """Another correct answer: compare sequence ids and positions of queries and keys."""
    q_seq = np.concatenate([[b] * new for b, (_, new) in enumerate(spans)])
    q_pos = np.concatenate([np.arange(c, c + n) for c, n in spans])
    k_seq = np.concatenate([[b] * (c + n) for b, (c, n) in enumerate(spans)])
    k_pos = np.concatenate([np.arange(c + n) for c, n in spans])
    return (q_seq[:, None] == k_seq[None, :]) & (k_pos[None, :] <= q_pos[:, None])
