"""An asyncio micro-batcher for a real model, driven by the same policies as the simulator.

    async with MicroBatcher(embed, max_batch=32, max_delay_ms=5) as mb:
        vec = await mb.submit("a sentence")

Guarantees: each result reaches its own caller; a model that raises fails only its batch
(and, with ``isolate_errors``, only the poison request); a wrong number of outputs is an
error for every caller of that batch, never a silent drop; cancelled callers leave the
queue before their batch is sealed (and are never answered after); a full queue rejects at once; ``close()`` finishes or
rejects every pending request. A sync ``infer_fn`` runs in a worker thread, so the event
loop keeps accepting requests while the model computes.
"""
from __future__ import annotations

import asyncio
import inspect
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Awaitable, Callable, Sequence

from .config import BatchConfig, knob_names
from .policies import WAIT, Dispatch, Policy, ask, take
from .registry import make_policy
from .records import BatcherStats, BatchRecord


class QueueFull(RuntimeError):
    """The batcher already holds ``max_queue`` waiting requests."""


class BatcherClosed(RuntimeError):
    """The batcher is closed (or closing without draining)."""


class BatchSizeMismatch(RuntimeError):
    """``infer_fn`` returned a different number of outputs than it was given inputs."""


def _failed(fut: asyncio.Future) -> bool:
    return fut.cancelled() or fut.exception() is not None


@dataclass(slots=True)
class _Pending:
    item: Any
    arrival: float  # ms on the loop's clock
    length: int
    future: asyncio.Future


class MicroBatcher:
    """Gathers concurrent ``submit`` calls into batches for ``infer_fn(list) -> list``.

    The knobs come as a ``config`` (``BatchConfig``, its ``policy`` included) and/or as
    keywords (any of ``batching.config.knobs``: ``max_batch``, ``max_delay_ms``, …; unset
    ones keep ``config``'s, else ``BatchConfig``'s defaults). ``policy``: a name from ``POLICIES``
    (default: ``config.policy``) or a ``Policy`` object, which is bound to the knobs given
    with it or rejected when they disagree (``make_policy``); the batcher and its policy
    then share one ``BatchConfig``, so ``reconfigure`` reaches the policy.
    ``length_fn(item) -> tokens`` feeds length-aware policies (default: every item is 1).
    ``isolate_errors``: when a batch raises, retry its requests one by one so that only
    the failing request gets the exception. ``preseal``: while a batch runs, hand the
    next one to the worker as soon as the policy seals it (``Policy.seal``), so it starts
    the moment the running one ends (False: each batch is decided when the last one ends, as before 0.3; for comparison)."""

    def __init__(self, infer_fn: Callable[[list], Sequence | Awaitable[Sequence]],
                 config: BatchConfig | None = None, *,
                 policy: str | Policy | None = None,
                 length_fn: Callable[[Any], int] | None = None,
                 isolate_errors: bool = True, preseal: bool = True, **knobs):
        if not callable(infer_fn):
            raise TypeError(f"infer_fn must be callable, got {infer_fn!r}")
        names = knob_names(None if config is None else type(config))
        unknown = sorted(set(knobs) - set(names))
        if unknown:
            raise TypeError(f"MicroBatcher got unknown keyword(s) {unknown}; knobs: {names}")
        self.policy = make_policy(policy, config, **knobs)
        self.cfg = self.policy.cfg
        self.infer_fn = infer_fn
        self.length_fn = length_fn
        self.isolate_errors = isolate_errors
        self.preseal = bool(preseal)
        self.stats = BatcherStats()
        self._async = inspect.iscoroutinefunction(infer_fn)
        self._queue: deque[_Pending] = deque()
        self._task: asyncio.Task | None = None
        self._wake: asyncio.Event | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._closing = False
        self._drain = True
        self._last_end = 0.0  # loop ms when the last batch was seen to end

    # ---- knobs ----------------------------------------------------------------------
    def reconfigure(self, **knobs) -> BatchConfig:
        """Change any ``BatchConfig`` knob live, ``policy`` included (a new policy object
        then takes over the queue, sharing the same ``BatchConfig``)."""
        new = replace(self.cfg, **knobs)  # validates before anything changes
        swap = new.policy != self.cfg.policy
        self.cfg.__dict__.update(new.__dict__)
        if swap:
            self.policy = make_policy(cfg=self.cfg)
        if self._wake:
            self._wake.set()
        return self.cfg

    @property
    def queue_depth(self) -> int:
        return len(self._queue)

    # ---- lifecycle ------------------------------------------------------------------
    async def start(self) -> "MicroBatcher":
        if self._task is None:
            if self._closing:
                raise BatcherClosed("this MicroBatcher was closed; make a new one")
            self.policy.reset()
            self._wake = asyncio.Event()
            self._pool = None if self._async else ThreadPoolExecutor(1, "microbatcher")
            self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    async def __aenter__(self) -> "MicroBatcher":
        return await self.start()

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def close(self, *, drain: bool = True) -> None:
        """Stop accepting work; ``drain=True`` runs what is queued, else rejects it."""
        self._closing, self._drain = True, self._drain and drain
        if self._task is None:
            self._fail_all(BatcherClosed("batcher closed before it started"))
            return
        self._wake.set()
        try:
            await self._task
        finally:
            if self._pool:
                self._pool.shutdown(wait=False)

    # ---- requests -------------------------------------------------------------------
    def admit(self, n: int = 1) -> None:
        """The one admission rule: ``n`` more requests fit while at most ``max_queue``
        wait; else ``QueueFull`` at once (counted in ``stats.rejected``), all or nothing."""
        if len(self._queue) + n > self.cfg.max_queue:
            self.stats.rejected += n
            raise QueueFull(f"queue full: {len(self._queue)} requests waiting "
                            f"(max_queue={self.cfg.max_queue}); retry later")

    async def submit(self, item: Any, *, length: int | None = None) -> Any:
        """Queue ``item`` and wait for its own result (or its own exception)."""
        if self._closing:
            raise BatcherClosed("batcher is closed; no new requests")
        await self.start()
        return await self.enqueue(item, length=length)

    def enqueue(self, item: Any, *, length: int | None = None) -> asyncio.Future:
        """Queue ``item`` on a started batcher; its future holds its own result (or
        exception). Cancelling the future takes the item out of the queue (before its
        batch is sealed). ``submit`` without a task per item: a request of n texts
        queues n futures and awaits them together."""
        if self._closing or self._task is None:
            raise BatcherClosed("batcher is closed; no new requests" if self._closing
                                else "batcher not started: await start() first")
        self.admit()
        if length is None:
            length = self.length_fn(item) if self.length_fn else 1
        loop = self._task.get_loop()
        fut = loop.create_future()
        self._queue.append(_Pending(item, loop.time() * 1000.0, int(length), fut))
        self.stats.submitted += 1
        self._wake.set()
        return fut

    # ---- the scheduler --------------------------------------------------------------
    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        running = sealed = None  # (batch, future, launch ms): executing / handed over next
        due = 0.0  # the time (ms) of the last timer that fired: the clock has reached it
        try:
            while True:
                self._wake.clear()
                self._drop_cancelled()
                if running is not None and running[1].done():
                    if sealed is not None and _failed(running[1]):
                        await asyncio.wait([sealed[1]])  # retries run after it, in order
                    await self._finish(*running, loop)
                    running, sealed = sealed, None
                    continue
                busy = running is not None
                if self._closing and not busy and (not self._queue or not self._drain):
                    break
                if not self._queue:
                    await self._wake.wait()
                    continue
                # a timer for ``until`` fires at until / 1000 s: read back in ms that can be
                # an ulp short of ``until``, and the policy would ask for it again
                now = max(loop.time() * 1000.0, due)
                if self._closing:  # draining: the oldest go as soon as the executor frees
                    d = WAIT if busy else self.policy.head(self._queue)
                else:
                    d = ask(self.policy, self._queue, now, busy)
                if isinstance(d, Dispatch):
                    running = self._launch(take(self._queue, d, self.policy), loop)
                    continue
                if busy and sealed is None and self.preseal:  # pre-seal: no handoff gap later
                    s = self.policy.seal(self._queue, now)
                    if s is not None:
                        sealed = self._launch(take(self._queue, s, self.policy), loop,
                                              after=running[1])
                        continue
                timeout = None if d.until is None else (d.until - now) / 1000.0
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout)
                except asyncio.TimeoutError:
                    due = d.until
        except BaseException as exc:  # a policy bug must not leave callers hanging
            err = exc if isinstance(exc, Exception) else BatcherClosed("cancelled")
            for held in (running, sealed):
                for p in held[0] if held else ():
                    self._settle(p, exc=err)
            self._fail_all(err)
            raise
        finally:
            self._fail_all(BatcherClosed("batcher closed without draining"))

    def _launch(self, batch: list[_Pending], loop, after: asyncio.Future | None = None):
        """Hand ``batch`` to the executor now; with ``after`` (the running batch) it starts
        the moment that one ends: the one worker thread takes it straight from its queue
        (an async model awaits ``after`` first). Returns (batch, future, launch ms)."""
        items = [p.item for p in batch]
        if self._async:
            async def chained():
                if after is not None:
                    await asyncio.wait([after])
                return await self.infer_fn(items)
            fut = asyncio.ensure_future(chained())
        else:
            fut = loop.run_in_executor(self._pool, self.infer_fn, items)
        fut.add_done_callback(lambda _: self._wake.set())
        return batch, fut, loop.time() * 1000.0

    def _drop_cancelled(self) -> None:
        if any(p.future.done() for p in self._queue):
            keep = deque(p for p in self._queue if not p.future.done())
            self.stats.cancelled += len(self._queue) - len(keep)
            self._queue = keep

    def _fail_all(self, exc: BaseException) -> None:
        while self._queue:
            p = self._queue.popleft()
            if not p.future.done():
                p.future.set_exception(exc)
                self.stats.failed += 1

    async def _execute(self, batch: list[_Pending], loop) -> None:
        """Run ``batch`` now and settle its callers (the retry path of ``isolate_errors``)."""
        await self._finish(*self._launch(batch, loop), loop)

    async def _finish(self, batch: list[_Pending], fut: asyncio.Future, launched: float,
                      loop) -> None:
        """Settle the callers of a batch whose future is done, and record it."""
        if not fut.done():
            await asyncio.wait([fut])
        start = max(launched, self._last_end)
        ok = True
        try:
            outs = fut.result()
            if not hasattr(outs, "__len__") or len(outs) != len(batch):
                got = len(outs) if hasattr(outs, "__len__") else type(outs).__name__
                raise BatchSizeMismatch(f"infer_fn returned {got} outputs for "
                                        f"{len(batch)} inputs; it must return one per input")
        except BatchSizeMismatch as exc:
            ok = False
            for p in batch:
                self._settle(p, exc=exc)
        except Exception as exc:
            ok = False
            if self.isolate_errors and len(batch) > 1:
                for p in batch:
                    await self._execute([p], loop)
                return
            for p in batch:
                self._settle(p, exc=exc)
        else:
            for p, out in zip(batch, outs):
                self._settle(p, out)
        end = self._last_end = loop.time() * 1000.0
        padded = self.policy.padded_tokens(batch)
        if ok:
            self.policy.observe(len(batch), padded, end - start)
        self.stats.batches += 1
        self.stats.batch_sizes[len(batch)] += 1
        self.stats.history.append(BatchRecord(
            len(batch), padded, sum(p.length for p in batch), start, end,
            [start - p.arrival for p in batch], ok))

    def _settle(self, p: _Pending, out: Any = None, exc: BaseException | None = None) -> None:
        if p.future.done():  # the caller gave up while its batch ran
            return
        if exc is None:
            p.future.set_result(out)
            self.stats.completed += 1
        else:
            p.future.set_exception(exc)
            self.stats.failed += 1
