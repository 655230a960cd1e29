# Bug: an endless loop once the queue holds a long request behind a short one.
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        k = 0
        while queue[k].length < 60:
            k = (k + 1) % len(queue)
        return Dispatch((k,))
