# Another answer: its own buckets (16 tokens wide) among the requests that can still meet
# the SLO, the fullest bucket first; late requests only when no live one waits.
from labsupport.batching.policies import WAIT, Dispatch, Policy, Wait


class ChallengePolicy(Policy):
    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        live = [k for k, r in enumerate(queue)
                if now + 8.0 + 0.16 * r.length <= r.arrival + self.cfg.slo_p99_ms]
        groups = {}
        for k in live or range(len(queue)):
            groups.setdefault(queue[k].length // 16, []).append(k)
        fullest = max(groups.values(), key=len)
        return Dispatch(tuple(fullest[:self.cfg.max_batch]))
