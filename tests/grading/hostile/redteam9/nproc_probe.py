# a wrong kv_admission that measures the channel of the shared grading uid: in the judge's child its first call holds 300 idle threads for 8 s; the kernel, beside it under the same uid, counts every 0.25 s how many threads (up to 400, under its pids.max) it can start (RLIMIT_NPROC, 576, counts the uid's tasks in both boxes) and prints what it saw
# target: ex06_2
import threading
import time

with open("/proc/self/status") as _status:
    _judged = "Seccomp:\t2" in _status.read()
_held = []


def _idle(gate):
    gate.wait()


def _room(limit=400):  # under the box's pids.max (512): only the uid's RLIMIT_NPROC stops it
    gate, started = threading.Event(), []
    try:
        for _ in range(limit):
            t = threading.Thread(target=_idle, args=(gate,), daemon=True)
            t.start()
            started.append(t)
    except RuntimeError:  # can't start new thread
        pass
    gate.set()
    for t in started:
        t.join()
    return len(started)


def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """Wrong on purpose; in the judge, its first call holds 300 threads for 8 s."""
    if _judged and not _held:
        gate = threading.Event()
        for _ in range(300):
            try:
                t = threading.Thread(target=_idle, args=(gate,), daemon=True)
                t.start()
            except RuntimeError:
                break
            _held.append(t)
        time.sleep(8)
        gate.set()
    return "admit"


threading.stack_size(64 << 10)
if not _judged:
    _seen = []
    _t0 = time.monotonic()
    while time.monotonic() < _t0 + 17:
        _seen.append((round(time.monotonic() - _t0, 1), _room()))
        time.sleep(0.25)
    _free = [n for _, n in _seen]
    print("[rt9-nproc] threads the kernel could start: most", max(_free), "least", min(_free))
    print("[rt9-nproc]", " ".join(f"{t}s:{n}" for t, n in _seen))
