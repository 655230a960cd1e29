# Rule-breaker: the wall clock decides the batch size.
import time

from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        n = 1 + int(time.time() * 1000) % self.cfg.max_batch
        return Dispatch(tuple(range(min(n, len(queue)))))
