# Bug: it raises its own max_batch to 64 (the knobs it was given are its copy; the cap is
# the service's).
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def __init__(self, cfg):
        cfg.max_batch = 64
        super().__init__(cfg)

    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        return Dispatch(tuple(range(min(len(queue), self.cfg.max_batch))))
