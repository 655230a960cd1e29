def grow_or_preempt(seq, n_tokens, running, kv, preempt):
    """Give seq blocks for n_tokens tokens, preempting when none are free."""
    kv.grow(seq, n_tokens)  # bug: never makes room
    return True
