# Bug: it times its own decisions with the wall clock (the policy has the virtual now).
import time

from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        t0 = time.perf_counter()
        if busy or not queue:
            return WAIT
        batch = self.head(queue)
        self.spent = time.perf_counter() - t0
        return batch
