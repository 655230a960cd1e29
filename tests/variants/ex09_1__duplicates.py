# Bug: the oldest request goes twice in its batch.
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        return Dispatch((0,) + tuple(range(min(len(queue), self.cfg.max_batch - 1))))
