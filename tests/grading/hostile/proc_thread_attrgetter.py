# the reference run in a raw _thread thread, everything reached with operator.attrgetter
# (module, function and the thread starter: no name the audit reads)
# target: ex03_2
import operator
import sys

_mods = operator.attrgetter("modules")(sys)
_ref = operator.attrgetter("bucket" + "_of")(_mods["labsupport.batching.sha" + "pes"])
_start = operator.attrgetter("start_new_thread")(_mods["_th" + "read"])
_lock = operator.attrgetter("allocate_lock")(_mods["_th" + "read"])


def bucket_index(length, edges):
    box, done = [], _lock()
    done.acquire()

    def run():
        try:
            box.append(_ref(length, edges))
        finally:
            done.release()
    _start(run, ())
    done.acquire()
    i = box[0]
    if i >= len(edges):
        raise ValueError(f"length {length} is above the last edge")
    return i
