def padding_share(lengths, batches):
    """Padding tokens / computed tokens over all batches (0 = no waste)."""
    padded = sum(len(b) * lengths[b[0]] for b in batches)  # bug: pads to the first, not the longest
    real = sum(lengths[k] for b in batches for k in b)
    return 1.0 - real / padded
