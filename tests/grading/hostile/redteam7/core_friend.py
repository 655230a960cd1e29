# the bystander of core_copier: an honest, independently written answer with a stats counter of its own (Dice 0.52 at most against the solution and the lab) that core_copier copies the core of; the review flags it as holding 100 % of core_copier's answer (a false accusation, score kept) and does not flag the copier
# target: ex06_1
STATS = {"steps": 0, "admitted": 0, "finished": 0}


def schedule_step(running, waiting, max_seqs, decode):
    """One continuous-batching iteration; returns the sequences that finished in it."""
    STATS["steps"] += 1
    free = max_seqs - len(running)
    for _ in range(min(free, len(waiting))):
        running.append(waiting.popleft())
        STATS["admitted"] += 1
    decode(running)
    finished, still = [], []
    for seq in running:
        (finished if seq.done else still).append(seq)
    STATS["finished"] += len(finished)
    running.clear()
    running.extend(still)
    return finished


def report():
    total = max(STATS["steps"], 1)
    return {k: round(v / total, 3) for k, v in STATS.items()}
