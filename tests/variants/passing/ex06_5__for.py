# honest: admit_under_budget with explicit early returns and a chunk variable
# target: ex06_5
def admit_under_budget(waiting, free_places, budget, admit, feed):
    """Admit from the head of waiting while places, tokens and KV allow; chunk prompts."""
    left = budget
    places = free_places
    while waiting:
        if places <= 0 or left <= 0:
            return
        head = waiting[0]
        if not admit(head):
            return
        waiting.popleft()
        places -= 1
        chunk = head.uncached if head.uncached < left else left
        feed(head, chunk)
        left -= chunk
