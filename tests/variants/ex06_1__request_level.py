def schedule_step(running, waiting, max_seqs, decode):
    """One iteration: admit, run, retire; returns the sequences that finished."""
    if not running:  # bug: a new batch only when the whole previous one is done
        while waiting and len(running) < max_seqs:
            running.append(waiting.popleft())
    decode(running)
    done = [s for s in running if s.done]
    running[:] = [s for s in running if not s.done]
    return done
