# honest: schedule_step filling free places with a for loop, then splitting running by done
# target: ex06_1
from collections import deque


def schedule_step(running, waiting, max_seqs, decode):
    """One continuous-batching iteration; returns the sequences that finished in it."""
    for _ in range(min(max_seqs - len(running), len(waiting))):
        running.append(waiting.popleft())
    decode(running)
    finished, still = [], []
    for seq in running:
        (finished if seq.done else still).append(seq)
    running[:] = still
    return finished
