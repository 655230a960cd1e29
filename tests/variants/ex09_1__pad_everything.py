# Bug (no rule broken): every waiting request in one batch, whatever its length: rows pad
# to the longest and a burst makes every later request late; beats no baseline.
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        return Dispatch(tuple(range(min(len(queue), self.cfg.max_batch))))
