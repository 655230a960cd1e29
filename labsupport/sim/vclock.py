"""An asyncio loop on a virtual clock, for deterministic timing tests and exercises.

``run(coro)`` runs ``coro`` on a loop whose ``time()`` starts at 0 and, whenever nothing
is ready, jumps straight to the next timer instead of sleeping. ``asyncio.sleep(0.02)``
therefore takes 20 virtual ms and no real time. Work in a worker thread
(``run_in_executor`` / ``asyncio.to_thread``) takes zero virtual time: the loop waits for
it for real, with the clock stopped. Use ``loop.time()`` (not ``time.perf_counter``).
"""
from __future__ import annotations

import asyncio
import threading
from typing import Any, Awaitable, Callable


class _VirtualSelector:
    def __init__(self, selector, loop: "VirtualClockLoop"):
        self._sel, self._loop = selector, loop

    def select(self, timeout=None):
        ready = self._sel.select(0)
        if ready or timeout == 0:
            return ready
        if self._loop._in_threads or timeout is None:
            return self._sel.select(None)  # real I/O or a worker thread: wait for it
        self._loop._now += timeout  # nothing can happen before the next timer: jump
        return []

    def __getattr__(self, name):
        return getattr(self._sel, name)


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """A selector loop whose clock advances only to the next scheduled timer."""

    def __init__(self):
        self._now = 0.0
        self._in_threads = 0
        super().__init__()
        self._selector = _VirtualSelector(self._selector, self)

    def time(self) -> float:
        return self._now

    def run_in_executor(self, executor, func, *args):
        fut = super().run_in_executor(executor, func, *args)
        self._in_threads += 1

        def done(_):
            self._in_threads -= 1
        fut.add_done_callback(done)
        return fut


def run(coro: Awaitable, *, timeout: float | None = None) -> Any:
    """Run ``coro`` on a fresh virtual-clock loop; ``timeout`` in virtual seconds raises
    ``TimeoutError`` (use it to detect callers that would hang forever). Inside a running
    loop (a Jupyter kernel) the virtual loop runs in a helper thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run(coro, timeout)
    return in_thread(lambda: _run(coro, timeout), "vclock")


def in_thread(fn: Callable[[], Any], name: str) -> Any:
    """``fn()`` in a fresh thread (where a new event loop may run while the caller's own
    loop, e.g. a Jupyter kernel's, is running); its value, or its exception re-raised."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc
    t = threading.Thread(target=target, name=name)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _run(coro: Awaitable, timeout: float | None) -> Any:
    loop = VirtualClockLoop()

    async def main():
        return await (coro if timeout is None else asyncio.wait_for(coro, timeout))
    try:
        return loop.run_until_complete(main())
    finally:
        try:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()
