def grow_or_preempt(seq, n_tokens, running, kv, preempt):
    """Another correct answer: one victim, then try again."""
    if kv.can_grow(seq, n_tokens):
        kv.grow(seq, n_tokens)
        return True
    newest = running[len(running) - 1]
    preempt(newest)
    return newest is not seq and grow_or_preempt(seq, n_tokens, running, kv, preempt)
