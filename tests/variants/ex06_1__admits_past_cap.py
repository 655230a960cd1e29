def schedule_step(running, waiting, max_seqs, decode):
    """One iteration: admit, run, retire; returns the sequences that finished."""
    while waiting:  # bug: admits everyone, ignoring max_seqs
        running.append(waiting.popleft())
    decode(running)
    done = [s for s in running if s.done]
    running[:] = [s for s in running if not s.done]
    return done
