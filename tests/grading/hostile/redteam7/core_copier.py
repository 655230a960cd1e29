# copying the working core of a classmate's answer (core_friend's: admission loop, partition, rebuild) and leaving out the code of their own around it (a stats counter and its report): the copy scores Dice 0.67 against the friend and holds 0.50 of it, so it is not flagged, while the friend's whole answer holds 100 % of the copy and goes to review as if the friend had copied
# target: ex06_1
def schedule_step(running, waiting, max_seqs, decode):
    free = max_seqs - len(running)
    for _ in range(min(free, len(waiting))):
        running.append(waiting.popleft())
    decode(running)
    finished, still = [], []
    for seq in running:
        (finished if seq.done else still).append(seq)
    running.clear()
    running.extend(still)
    return finished
