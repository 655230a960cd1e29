"""Shared by the serving tests (``tests/serving``): a fake-model service per module, its
numbers, and process/port checks."""
import os
import time

import httpx
import pytest

from labsupport.costs import ServiceModel
from labsupport.serving.ops.launcher import start_service

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


def until(cond, within_s: float = 10.0) -> bool:
    """True once ``cond()`` holds, False after ``within_s`` seconds of asking."""
    deadline = time.monotonic() + within_s
    while not cond():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def refused(url: str) -> bool:
    """True when nothing listens at ``url`` any more."""
    try:
        httpx.get(url + "/healthz", timeout=2)
    except httpx.ConnectError:
        return True
    return False


@pytest.fixture(scope="module")
def service():
    """A fake-model embedding service on 127.0.0.1 (a real uvicorn process) per module."""
    svc = start_service("fake", max_batch=MAX_BATCH, max_delay_ms=5.0, max_queue=MAX_QUEUE,
                        fake=ServiceModel(FIXED_MS, PER_ITEM_MS), timeout_s=30)
    yield svc
    svc.stop()
