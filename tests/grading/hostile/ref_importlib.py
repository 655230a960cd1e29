# the lab's module imported by a computed name through importlib
# target: ex03_2
import importlib

_lab = importlib.import_module(".".join(["labsupport", "batching", "shapes"])).bucket_of


def bucket_index(length, edges):
    if length > max(edges):
        raise ValueError(f"{length} fits no bucket")
    return _lab(length, edges)
