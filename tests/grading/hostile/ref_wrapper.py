# a thin wrapper around the lab's own bucket_of, through a module alias
# target: ex03_2
import labsupport.batching as lab


def bucket_index(length, edges):
    if length > max(edges):
        raise ValueError(f"{length} fits no bucket")
    return lab.shapes.bucket_of(length, edges)
