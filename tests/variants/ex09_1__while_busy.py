# Bug: it ignores busy (the model runs one batch at a time).
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if not queue:
            return WAIT
        return self.head(queue)
