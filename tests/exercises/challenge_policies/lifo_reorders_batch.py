# Rule-breaker: newest first, but it counts positions from the end (-1: outside the queue).
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        return Dispatch(tuple(-1 - k for k in range(min(len(queue), 4))))
