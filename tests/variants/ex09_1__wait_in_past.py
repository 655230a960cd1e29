# Bug: it waits until the oldest request's arrival plus 2 ms, even when that has passed.
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        if len(queue) < 4:
            return Wait(queue[0].arrival + 2.0)
        return self.head(queue)
