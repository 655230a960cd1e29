def schedule_step(running, waiting, max_seqs, decode):
    """One iteration: admit, run, retire; returns the sequences that finished."""
    decode(running)  # bug: runs before admitting, so a freed place idles for a step
    done = [s for s in running if s.done]
    running[:] = [s for s in running if not s.done]
    while waiting and len(running) < max_seqs:
        running.append(waiting.popleft())
    return done
