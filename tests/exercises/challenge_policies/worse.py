# Worse than every baseline: a 40 ms window, whatever the queue holds.
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if not queue:
            return WAIT
        due = queue[0].arrival + 40.0
        if now < due:
            return Wait(due)
        return WAIT if busy else Dispatch(tuple(range(min(len(queue), self.cfg.max_batch))))
