"""The virtual-clock loop: timers jump, threads take zero virtual time, hangs time out."""
import asyncio
import time

import pytest

from labsupport.sim.vclock import run


def test_sleep_takes_virtual_not_real_time():
    async def main():
        loop = asyncio.get_running_loop()
        await asyncio.sleep(3600)
        return loop.time()
    t0 = time.perf_counter()
    assert run(main()) == pytest.approx(3600)
    assert time.perf_counter() - t0 < 1.0


def test_worker_threads_take_zero_virtual_time():
    async def main():
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        await asyncio.to_thread(time.sleep, 0.05)
        return loop.time() - t0
    assert run(main()) == 0.0


def test_a_caller_that_would_hang_times_out():
    async def hang():
        await asyncio.get_running_loop().create_future()
    with pytest.raises(TimeoutError):
        run(hang(), timeout=30)


def test_run_works_inside_a_running_loop_like_a_kernel():
    async def inner():
        await asyncio.sleep(10)
        return asyncio.get_running_loop().time()

    async def outer():
        return run(inner())
    assert asyncio.run(outer()) == pytest.approx(10)
