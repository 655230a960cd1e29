# Equal to the default baseline: the oldest up to max_batch whenever the model is free.
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        return WAIT if busy or not queue else self.head(queue)
