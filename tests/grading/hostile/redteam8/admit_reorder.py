# admit_swap (the lab's admit_waiting, conditions reordered, min's arguments swapped) with two independent statements moved: the popleft after the place is counted, the budget taken before the feed
# target: ex06_5
def admit_under_budget(waiting, free_places, budget, admit, feed):
    """Admit from the head of waiting while places, tokens and KV allow; chunk prompts."""
    while budget > 0 and free_places > 0 and waiting:
        seq = waiting[0]
        if not admit(seq):
            break
        free_places -= 1
        waiting.popleft()
        n = min(budget, seq.uncached)
        budget -= n
        feed(seq, n)
