def budget_batches(lengths, max_tokens):
    """Consecutive batches with len(batch) * longest <= max_tokens (tokens)."""
    batches, current, longest = [], [], 0
    for k, n in enumerate(lengths):
        n = min(n, max_tokens)  # bug: over-long inputs are cut without a word
        top = max(longest, n)
        if current and (len(current) + 1) * top > max_tokens:
            batches.append(current)
            current, top = [], n
        current.append(k)
        longest = top
    if current:
        batches.append(current)
    return batches
