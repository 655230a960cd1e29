# the lab's cached_prefix run in a thread started by threading._start_new_thread: that thread
# has no tracer, so the tripwire never sees the reference; module reached by getattr on a
# list item (the audit resolves only names it saw imported)
# target: ex06_10
import threading
import labsupport.decoder

_kv = getattr([labsupport.decoder][0], "kv" + "cache")
_ref = getattr(_kv, "cached" + "_prefix")


def _untraced(fn, *args):
    out, done = [], threading.Lock()
    done.acquire()

    def run():
        try:
            out.append((True, fn(*args)))
        except BaseException as err:  # noqa: BLE001
            out.append((False, err))
        finally:
            done.release()
    threading._start_new_thread(run, ())
    done.acquire()
    ok, value = out[0]
    if not ok:
        raise value
    return value


def prefix_hits(tokens, block_size, by_name):
    return _untraced(_ref, tokens, block_size, by_name)
