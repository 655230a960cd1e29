# an honest grow_or_preempt written from the exercise text (while True: grow if it can, else preempt running[-1]; False if that was seq): the review's Dice against the lab's reference is 0.80, a false accusation
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
