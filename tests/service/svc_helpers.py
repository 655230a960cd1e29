"""Shared by the service tests: the fake model's numbers and process/port checks."""
import os
import time

import httpx

# The fake model sleeps 40 ms + 5 ms per text, max_batch 4: capacity ≈ 67 texts/s, low
# enough that a Python load generator on 2 cores can offer 10× that.
FIXED_MS, PER_ITEM_MS, MAX_BATCH, MAX_QUEUE = 40.0, 5.0, 4, 32
CAPACITY_RPS = 1000.0 * MAX_BATCH / (FIXED_MS + PER_ITEM_MS * MAX_BATCH)


def gone(pid: int, within_s: float) -> bool:
    """True once process ``pid`` has exited (reaping it if it is our child)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a zombie child still answers kill(pid, 0)
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            pass
        time.sleep(0.05)
    return False


def refused(url: str) -> bool:
    """True when nothing listens at ``url`` any more."""
    try:
        httpx.get(url + "/healthz", timeout=2)
    except httpx.ConnectError:
        return True
    return False
