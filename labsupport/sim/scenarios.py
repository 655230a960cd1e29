"""Drive any batcher (anything with ``await submit(item)``) through a scripted scenario on the
virtual clock (``labsupport.sim.vclock``) and record what every caller got, and when.

Notebook 02's experiments and the checks in ``labsupport.exercises.ex02`` both use it:

    res = probe(lambda f: LessonBatcher(f, max_batch=4, max_delay_ms=10),
                arrivals_ms=[0, 0, 0, 0], model=double)
    res.latency_ms  # → [10.0, 10.0, 10.0, 10.0]: a full batch still waited the window

Times are virtual ms from the start of the scenario. A caller that has neither a result nor
an error when the scenario's horizon ends is recorded as ``"hung"``. ``cancel_ms`` lets a
caller give up (a client timeout or disconnect): its ``submit`` task is cancelled at that
time and it is recorded as ``"cancelled"``.
"""
from __future__ import annotations

import asyncio
import inspect
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ..costs import ServiceModel, fake_model
from .vclock import run


@dataclass
class Outcome:
    """What one caller saw. ``status``: ``ok`` (``value`` holds the result), ``error``
    (``value`` holds the exception), ``cancelled`` (it gave up first) or ``hung`` (still
    waiting at the horizon)."""
    item: Any
    arrival_ms: float
    status: str = "hung"
    value: Any = None
    done_ms: float = float("nan")

    @property
    def latency_ms(self) -> float:
        return self.done_ms - self.arrival_ms


@dataclass
class Call:
    """One call of the model: when (ms), with which items, on the event loop's thread or not."""
    t_ms: float
    items: list
    on_loop_thread: bool


@dataclass
class ProbeResult:
    outcomes: list[Outcome]
    calls: list[Call] = field(default_factory=list)
    setup_error: BaseException | None = None  # the batcher could not be built
    task_errors: list[BaseException] = field(default_factory=list)  # crashed background tasks

    @property
    def latency_ms(self) -> np.ndarray:
        return np.array([o.latency_ms for o in self.outcomes])

    @property
    def statuses(self) -> list[str]:
        return [o.status for o in self.outcomes]

    @property
    def batch_sizes(self) -> list[int]:
        return [len(c.items) for c in self.calls]

    def table(self) -> str:
        """One line per caller, for printing in a notebook."""
        rows = [f"{'item':>8} {'arrive ms':>9} {'status':>6} {'done ms':>8}  value"]
        for o in self.outcomes:
            val = type(o.value).__name__ + ": " + str(o.value) if o.status == "error" else o.value
            rows.append(f"{o.item!s:>8} {o.arrival_ms:9.1f} {o.status:>6} {o.done_ms:8.1f}  {val}")
        return "\n".join(rows)


def virtual_model(fn: Callable[[list], list], fixed_ms: float, per_item_ms: float = 0.0):
    """An async model that takes ``fixed_ms + per_item_ms·n`` virtual ms, then returns
    ``fn(items)`` — model time without a real model."""
    return fake_model(ServiceModel(fixed_ms, per_item_ms), fn, asynchronous=True)



def probe(make_batcher: Callable[[Callable], Any], arrivals_ms: Sequence[float],
          items: Sequence | None = None, *, model: Callable[[list], Any],
          horizon_ms: float = 2000.0, cancel_ms: Sequence[float | None] | None = None
          ) -> ProbeResult:
    """Submit ``items[i]`` at ``arrivals_ms[i]`` to ``make_batcher(model)`` and wait until
    every caller is answered or ``horizon_ms`` (virtual) passes. ``items`` default to
    ``0, 1, 2, …``. ``model`` may be sync or async; every call is recorded. Caller ``i``
    gives up at ``cancel_ms[i]`` (virtual ms; ``None`` or nan: never)."""
    items = list(range(len(arrivals_ms))) if items is None else list(items)
    if len(items) != len(arrivals_ms):
        raise ValueError("items and arrivals_ms must have the same length")
    cancel = [None] * len(items) if cancel_ms is None else list(cancel_ms)
    if len(cancel) != len(items):
        raise ValueError("cancel_ms must have one entry (or None) per arrival")
    res = ProbeResult([Outcome(it, float(a)) for it, a in zip(items, arrivals_ms)])
    run(_scenario(make_batcher, model, res, horizon_ms / 1000.0, cancel))
    return res


async def _scenario(make_batcher, model, res: ProbeResult, horizon_s: float,
                    cancel: list) -> None:
    loop = asyncio.get_running_loop()

    def on_error(_loop, ctx) -> None:  # flawed batchers leak task errors: record, stay quiet
        if isinstance(ctx.get("exception"), BaseException):
            res.task_errors.append(ctx["exception"])
    loop.set_exception_handler(on_error)
    loop_thread = threading.get_ident()

    if inspect.iscoroutinefunction(model):
        async def infer(batch):
            res.calls.append(Call(loop.time() * 1000.0, list(batch), True))
            return await model(batch)
    else:
        def infer(batch):
            on_loop = threading.get_ident() == loop_thread
            res.calls.append(Call(loop.time() * 1000.0, list(batch), on_loop))
            return model(batch)

    try:
        batcher = make_batcher(infer)
    except Exception as exc:  # reported by the caller (a check names the problem)
        res.setup_error = exc
        return

    async def caller(o: Outcome, give_up_ms) -> None:
        await asyncio.sleep(o.arrival_ms / 1000.0)
        me, left = asyncio.current_task(), []
        timer = None
        if give_up_ms is not None and give_up_ms == give_up_ms:  # None or nan: never
            def give_up() -> None:  # the client leaves: its pending submit() is cancelled
                left.append(True)
                me.cancel()
            timer = loop.call_later(max(0.0, give_up_ms - o.arrival_ms) / 1000.0, give_up)
        try:
            o.value, o.status = await batcher.submit(o.item), "ok"
        except asyncio.CancelledError:
            if not left:
                raise  # cancelled by the horizon, not by the client: still "hung"
            o.value, o.status = None, "cancelled"
        except Exception as exc:
            o.value, o.status = exc, "error"
        finally:
            if timer is not None:
                timer.cancel()
        o.done_ms = loop.time() * 1000.0

    tasks = [loop.create_task(caller(o, c)) for o, c in zip(res.outcomes, cancel)]
    _, pending = await asyncio.wait(tasks, timeout=horizon_s)
    for t in pending:
        t.cancel()
    if pending:
        await asyncio.wait(pending, timeout=1.0)
    for o in res.outcomes:
        if o.status == "hung":
            o.value, o.done_ms = None, float("nan")
    close = getattr(batcher, "close", None)  # e.g. MicroBatcher: stop its task and thread
    if inspect.iscoroutinefunction(close):
        try:
            await asyncio.wait_for(close(), 1.0)
        except Exception:
            pass


AUTOGRADE_SPAN_MS = 500.0  # grading needs the cell to run, not two seconds of traffic
AUTOGRADE_MIN_REQUESTS = 5  # enough for a mean and a spread


async def open_loop(submit: Callable[[Any], Any], requests: Sequence, make_item:
                    Callable[[Any], Any] = lambda r: r, *, timeout_s: float | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Real-clock open loop: call ``submit(make_item(r))`` at each request's ``arrival`` (ms
    from now) whether or not earlier ones finished. Returns (scheduled arrival, finish) in ms
    on the loop clock, from the scheduled time (no coordinated omission); nan finish for a
    request that raised, or that was still waiting after ``timeout_s`` (then cancelled).

    In autograde mode (``labsupport.autograde_mode()``) only the requests that arrive in the
    first ``AUTOGRADE_SPAN_MS`` are replayed (at least ``AUTOGRADE_MIN_REQUESTS``): the
    returned arrays are that long."""
    from ..paths import autograde_mode
    if autograde_mode():
        requests = [r for k, r in enumerate(requests)
                    if k < AUTOGRADE_MIN_REQUESTS or r.arrival <= AUTOGRADE_SPAN_MS]
    loop = asyncio.get_running_loop()
    t0 = loop.time() * 1000.0
    arrival = np.array([t0 + r.arrival for r in requests], dtype=float)
    finish = np.full(len(requests), np.nan)

    async def one(k: int, r) -> None:
        delay = (arrival[k] - loop.time() * 1000.0) / 1000.0
        if delay > 0:
            await asyncio.sleep(delay)
        try:
            await submit(make_item(r))
            finish[k] = loop.time() * 1000.0
        except Exception:
            pass

    tasks = [loop.create_task(one(k, r)) for k, r in enumerate(requests)]
    if tasks:
        _, pending = await asyncio.wait(tasks, timeout=timeout_s)
        for t in pending:
            t.cancel()
        if pending:
            await asyncio.wait(pending)
    return arrival - t0, finish - t0
