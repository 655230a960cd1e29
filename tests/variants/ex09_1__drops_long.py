# Bug: requests longer than 48 tokens are never sent (dropped).
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        short = [k for k, r in enumerate(queue) if r.length <= 48]
        if busy or not short:
            return WAIT
        return Dispatch(tuple(short[:self.cfg.max_batch]))
