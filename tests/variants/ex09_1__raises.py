# Bug: crashes when the queue is long (an index past its end).
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        if len(queue) > 20:
            return Dispatch((queue[40].length,))
        return self.head(queue)
