def schedule_step(running, waiting, max_seqs, decode):
    """One iteration: admit, run, retire; returns the sequences that finished."""
    while waiting and len(running) < max_seqs:
        running.append(waiting.pop())  # bug: takes the newest request, not the oldest
    decode(running)
    done = [s for s in running if s.done]
    running[:] = [s for s in running if not s.done]
    return done
