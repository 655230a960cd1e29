def admit_under_budget(waiting, free_places, budget, admit, feed):
    """Another correct answer: a counted loop over the places."""
    for _ in range(free_places):
        if not waiting or budget <= 0 or not admit(waiting[0]):
            return
        seq = waiting.popleft()
        take = seq.uncached if seq.uncached < budget else budget
        feed(seq, take)
        budget = budget - take
