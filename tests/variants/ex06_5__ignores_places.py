def admit_under_budget(waiting, free_places, budget, admit, feed):
    """Admit from the head of waiting under the step's token budget."""
    while waiting and budget > 0:  # bug: forgets the free places
        seq = waiting[0]
        if not admit(seq):
            break
        waiting.popleft()
        n = min(seq.uncached, budget)
        feed(seq, n)
        budget -= n
