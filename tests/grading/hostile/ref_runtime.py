# the lab's bucket_of reached through a policy the static table does not name for ex03_2:
# only the runtime tripwire of the trusted pass sees it run
# target: ex03_2
from labsupport.batching.bucketed import Bucketed


def bucket_index(length, edges):
    if length > max(edges):
        raise ValueError(f"{length} is longer than the last edge {max(edges)}")
    return Bucketed(edges=edges).bucket(length)
