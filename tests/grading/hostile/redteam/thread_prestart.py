# the lab's bucket_of run in a worker thread started before the check (at cell time): a
# tracer set for the threads a call starts does not reach it
# target: ex03_2
import pydoc
from concurrent.futures import ThreadPoolExecutor

_ref = pydoc.locate("labsup" + "port.batching.sha" + "pes.bucket_of")
_pool = ThreadPoolExecutor(1)
_pool.submit(int).result()  # the worker thread starts now


def bucket_index(length, edges):
    i = _pool.submit(_ref, length, edges).result()
    if i >= len(edges):
        raise ValueError(f"length {length} is above the last edge")
    return i
