# Equal to the bucketed baseline: it is the lab's bucketed policy.
from labsupport.batching.bucketed import Bucketed


class ChallengePolicy(Bucketed):
    pass
