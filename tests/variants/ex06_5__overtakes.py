def admit_under_budget(waiting, free_places, budget, admit, feed):
    """Admit from the head of waiting under the step's token budget."""
    for seq in list(waiting):  # bug: skips a request that does not fit and tries the next
        if free_places == 0 or budget == 0:
            break
        if admit(seq):
            waiting.remove(seq)
            free_places -= 1
            n = min(seq.uncached, budget)
            feed(seq, n)
            budget -= n
