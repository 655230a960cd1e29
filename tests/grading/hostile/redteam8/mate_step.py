# a classmate's schedule_step (the honest control's: the instructors' answer) with the admission loop's test written the other way round, the admitted sequence named, and the finished kept out by membership instead of by their flag
# target: ex06_1
from collections import deque


def schedule_step(running, waiting, max_seqs, decode):
    """One continuous-batching iteration; returns the sequences that finished in it."""
    while waiting and max_seqs > len(running):
        seq = waiting.popleft()
        running.append(seq)
    decode(running)
    done = [s for s in running if s.done]
    running[:] = [s for s in running if s not in done]
    return done
