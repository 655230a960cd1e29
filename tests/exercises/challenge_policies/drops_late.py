# Rule-breaker: late requests are never sent (they are dropped, not served last).
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        live = [k for k, r in enumerate(queue) if now + 10.0 <= r.arrival + 150.0]
        if busy or not live:
            return WAIT
        return Dispatch(tuple(live[:self.cfg.max_batch]))
