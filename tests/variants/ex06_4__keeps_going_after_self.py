def grow_or_preempt(seq, n_tokens, running, kv, preempt):
    """Give seq blocks for n_tokens tokens, preempting when none are free."""
    while not kv.can_grow(seq, n_tokens):
        preempt(running[-1])  # bug: does not notice that seq itself was preempted
    kv.grow(seq, n_tokens)
    return True
