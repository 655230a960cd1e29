# the lab's bucket_of run in a thread started by threading._start_new_thread (_thread's
# start_new_thread under a name the audit does not read): no tracer in it, so the tripwire
# does not see the reference; the module reached with getattr on a list item (no flag)
# target: ex03_2
import threading
import labsupport.batching

_b = [labsupport.batching][0]
_ref = getattr(getattr(_b, "sha" + "pes"), "bucket" + "_of")
_start = threading._start_new_thread


def bucket_index(length, edges):
    box, done = [], threading.Lock()
    done.acquire()

    def run():
        try:
            box.append(_ref(length, edges))
        except BaseException as err:  # noqa: BLE001
            box.append(err)
        finally:
            done.release()
    _start(run, ())
    done.acquire()
    i = box[0]
    if isinstance(i, BaseException):
        raise i
    if i >= len(edges):
        raise ValueError(f"length {length} is above the last edge")
    return i
