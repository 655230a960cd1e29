# honest: budget_batches, a greedy pass that closes a batch when the next one would not fit
# target: ex03_3
def budget_batches(lengths, max_tokens):
    """Consecutive batches with len(batch) * longest <= max_tokens (tokens)."""
    out = []
    batch = []
    top = 0
    for idx, length in enumerate(lengths):
        if length > max_tokens:
            raise ValueError(f"lengths[{idx}] = {length} exceeds max_tokens = {max_tokens}")
        new_top = max(top, length)
        if batch and new_top * (len(batch) + 1) > max_tokens:
            out.append(batch)
            batch = [idx]
            top = length
        else:
            batch.append(idx)
            top = new_top
    if batch:
        out.append(batch)
    return out
