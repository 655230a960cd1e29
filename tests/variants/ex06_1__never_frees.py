def schedule_step(running, waiting, max_seqs, decode):
    """One iteration: admit, run, retire; returns the sequences that finished."""
    while waiting and len(running) < max_seqs:
        running.append(waiting.popleft())
    decode(running)
    return [s for s in running if s.done]  # bug: finished sequences keep their place forever
