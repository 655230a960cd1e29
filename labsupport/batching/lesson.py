"""The lesson's sample micro-batcher, rebuilt with exactly its flaws (notebook 02's baseline).

``LessonBatcher`` follows the lesson's design: the first request into an empty queue starts
a timer; when it fires, up to ``max_batch`` requests go to ``infer_fn``; leftovers start a
new timer. It is deliberately flawed, so that experiments can expose each flaw:

1. a full batch still waits for the timer;
2. a lone request on an idle server always waits the whole window;
3. if ``infer_fn`` raises, every caller of that batch waits forever;
4. a sync ``infer_fn`` runs on the event loop, freezing every other coroutine meanwhile;
5. if ``infer_fn`` returns fewer outputs than inputs, the extra callers wait forever;
6. if a caller gives up (a client timeout or disconnect cancels its future), ``set_result``
   on that future raises ``InvalidStateError``: delivery stops there, and the callers after
   it in the batch wait forever.

Each step lives in its own small method so a fix is one override (notebook 02's exercises).
Do not use it to serve anything: ``labsupport.MicroBatcher`` is the fixed design.
"""
from __future__ import annotations

import asyncio
import inspect
from typing import Any, Callable


class LessonBatcher:
    """``await submit(item)`` → that item's output of ``infer_fn(list) -> list``.

    ``infer_fn`` may be sync (called on the event loop: flaw 4) or async (awaited; its
    ``asyncio.sleep`` stands in for model time in virtual-clock experiments)."""

    def __init__(self, infer_fn: Callable, max_batch: int = 32, max_delay_ms: float = 10.0):
        self.infer_fn = infer_fn
        self.max_batch = max_batch
        self.max_delay = max_delay_ms / 1000.0  # seconds, as asyncio.sleep wants
        self.queue: list[tuple[Any, asyncio.Future]] = []  # (item, caller's future)
        self.batches: list[int] = []  # size of every batch sent to the model
        self._tasks: set[asyncio.Task] = set()

    async def submit(self, item: Any) -> Any:
        """Queue ``item`` and wait for its output."""
        fut = asyncio.get_running_loop().create_future()
        self.queue.append((item, fut))
        self._on_arrival()
        return await fut

    def _on_arrival(self) -> None:
        """Flaws 1 and 2: only start the timer; never dispatch now, even when idle or full."""
        if len(self.queue) == 1:
            self._start_timer()

    def _spawn(self, coro) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)  # keep a reference so the task is not collected mid-flight
        task.add_done_callback(self._tasks.discard)
        return task

    def _start_timer(self) -> None:
        self._spawn(self._window())

    async def _window(self) -> None:
        await asyncio.sleep(self.max_delay)  # always the whole window
        await self._flush()

    async def _flush(self) -> None:
        """Cut the oldest ``max_batch`` requests; leftovers get a fresh timer."""
        batch, self.queue = self.queue[:self.max_batch], self.queue[self.max_batch:]
        if self.queue:
            self._start_timer()
        if batch:
            await self._run(batch)

    async def _run(self, batch: list[tuple[Any, asyncio.Future]]) -> None:
        """Flaw 3: an exception from the model escapes here; the futures stay pending."""
        self.batches.append(len(batch))
        outs = await self._call([item for item, _ in batch])
        self._deliver(batch, outs)

    async def _call(self, items: list) -> list:
        """Flaw 4: a sync model runs right here, on the event loop's thread."""
        outs = self.infer_fn(items)
        if inspect.isawaitable(outs):
            outs = await outs
        return outs

    def _deliver(self, batch: list[tuple[Any, asyncio.Future]], outs: list) -> None:
        """Flaw 5: ``zip`` stops at the shorter list; unmatched callers never hear back.
        Flaw 6: a cancelled future makes ``set_result`` raise, and the loop stops there."""
        for (_, fut), out in zip(batch, outs):
            fut.set_result(out)
