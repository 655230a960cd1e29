"""Open-loop send times kept without burning the CPU: ``pace`` fires each request at its
scheduled ``time.monotonic()`` from a sleeping thread (the load generator, the peers
bench's in-process load)."""
from __future__ import annotations

import asyncio
import threading
import time
from typing import Callable


EARLY_S = 0.0004    # a lone send: its thread wakes the loop this early, the loop yields the rest
LONE_GAP_S = 0.005  # lone = at least this long after the previous send (so yielding costs < 8 % of a core)


async def pace(dues: list[float], fire: Callable[[int], None]) -> None:
    """Call ``fire(k)`` on the running loop at ``time.monotonic()`` ≈ ``dues[k]`` (in
    ascending order); returns once the last has fired. A thread sleeps to each time and
    hands over: a loop timer wakes up to 1 ms late (epoll and libuv count in whole ms),
    which a scheduled-send clock would charge to the server, and spinning to beat it
    burns the CPU that the server under test needs. The hand-over itself takes ~0.2 ms,
    so for a lone send the thread wakes the loop ``EARLY_S`` early and the loop yields
    (``asyncio.sleep(0)``) until it is due. Sends due within 50 µs of each other fire
    together."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    stop = threading.Event()
    state = {"deferred": 0, "finished": False, "err": None}

    def fire_range(i: int, j: int) -> None:
        if time.monotonic() < dues[i]:
            state["deferred"] += 1
            loop.create_task(fire_when_due(i, j))
            return
        for k in range(i, j):
            fire(k)

    async def fire_when_due(i: int, j: int) -> None:
        try:
            while time.monotonic() < dues[i]:
                await asyncio.sleep(0)
            fire_range(i, j)
        finally:
            state["deferred"] -= 1
            settle()

    def settle() -> None:
        if state["finished"] and not state["deferred"] and not done.done():
            done.set_exception(state["err"]) if state["err"] else done.set_result(None)

    def finish(exc: BaseException | None) -> None:
        state["finished"], state["err"] = True, exc
        settle()

    def run() -> None:
        k, n, err = 0, len(dues), None
        try:
            while k < n and not stop.is_set():
                lone = k == 0 or dues[k] - dues[k - 1] >= LONE_GAP_S
                wait = dues[k] - (EARLY_S if lone else 0.0) - time.monotonic()
                if wait > 0 and stop.wait(wait):
                    break
                now, j = time.monotonic(), k + 1
                while j < n and dues[j] <= now + 5e-5:
                    j += 1
                loop.call_soon_threadsafe(fire_range, k, j)
                k = j
        except BaseException as exc:  # noqa: BLE001 (handed to the awaiting coroutine)
            err = exc
        try:
            loop.call_soon_threadsafe(finish, err)
        except RuntimeError:  # the loop is gone: nobody waits any more
            pass

    thread = threading.Thread(target=run, name="loadgen-pace", daemon=True)
    thread.start()
    try:
        await done
    finally:
        stop.set()
