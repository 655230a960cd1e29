def admit_under_budget(waiting, free_places, budget, admit, feed):
    """Admit from the head of waiting under the step's token budget."""
    if waiting and free_places > 0 and budget > 0:  # bug: at most one newcomer per step
        seq = waiting[0]
        if admit(seq):
            waiting.popleft()
            feed(seq, min(seq.uncached, budget))
