# Bug: an unseeded coin decides the batch size (two runs of one trace differ).
import random

from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        n = random.randint(1, self.cfg.max_batch)
        return Dispatch(tuple(range(min(n, len(queue)))))
