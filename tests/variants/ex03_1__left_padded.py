import numpy as np


def pad_batch(seqs, pad_id=0):
    """Right-pad token-id lists to the longest; returns (ids, mask), both [n, L]."""
    if len(seqs) == 0:
        raise ValueError("seqs must not be empty")
    L = max(len(s) for s in seqs)
    ids = np.full((len(seqs), L), pad_id, dtype=np.int64)
    mask = np.zeros((len(seqs), L), dtype=np.int64)
    for r, s in enumerate(seqs):
        ids[r, L - len(s):] = s  # bug: pads on the left, mask still on the right
        mask[r, :len(s)] = 1
    return ids, mask
