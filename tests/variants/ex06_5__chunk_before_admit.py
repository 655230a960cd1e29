def admit_under_budget(waiting, free_places, budget, admit, feed):
    """Admit from the head of waiting under the step's token budget."""
    while waiting and free_places > 0 and budget > 0:
        seq = waiting[0]
        n = min(seq.uncached, budget)  # bug: sized before admit, which may share a cached prefix
        if not admit(seq):
            break
        waiting.popleft()
        free_places -= 1
        feed(seq, n)
        budget -= n
