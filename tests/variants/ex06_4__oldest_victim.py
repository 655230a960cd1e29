def grow_or_preempt(seq, n_tokens, running, kv, preempt):
    """Give seq blocks for n_tokens tokens, preempting when none are free."""
    while not kv.can_grow(seq, n_tokens):
        victim = running[0]  # bug: preempts the oldest, which has done the most work
        preempt(victim)
        if victim is seq:
            return False
    kv.grow(seq, n_tokens)
    return True
