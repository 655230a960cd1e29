# the lab's bucket_of looked up with a name built at run time
# target: ex03_2
from labsupport.batching import shapes

_lab = getattr(shapes, "bucket" + "_" + "of")


def bucket_index(length, edges):
    if length > max(edges):
        raise ValueError(f"{length} fits no bucket")
    return _lab(length, edges)
