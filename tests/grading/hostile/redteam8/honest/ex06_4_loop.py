# honest: grow_or_preempt written from the exercise text, preempting from the back until seq fits
# target: ex06_4
def grow_or_preempt(seq, n_tokens, running, kv, preempt):
    """Blocks for n_tokens tokens of seq, preempting the latest arrival while none are free."""
    while True:
        if kv.can_grow(seq, n_tokens):
            kv.grow(seq, n_tokens)
            return True
        last = running[-1]
        preempt(last)
        if last is seq:
            return False
