# Bug: under a burst it sends up to 64 requests at once (max_batch is 32).
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        return Dispatch(tuple(range(min(len(queue), 64))))
