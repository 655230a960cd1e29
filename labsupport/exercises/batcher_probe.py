"""Shared pieces of notebook 02's batcher checks (``labsupport.exercises.ex02``): run a
student's batcher class through a scripted scenario on the virtual clock and say, in the
student's terms, what went wrong. Also the two checks every batcher must pass: it serves
the oldest waiting requests first, and a caller that gives up harms nobody else; and
``concurrent_calls``, a real-clock probe of how many batches compute at the same time.
"""
from __future__ import annotations

import numpy as np

from ..sim.scenarios import ProbeResult, probe, virtual_model
from ..sim.vclock import in_thread
from .guard import is_stub, student
from .plain import class_name, describe, describe_error, type_name

EPS_MS = 0.5  # virtual-clock slack: model calls take no virtual time in these checks


def _shout(items: list) -> list:
    """The checks' model: one output per input, easy to tell apart."""
    return [str(x).upper() + "!" for x in items]


def _run(cls, ex: str, arrivals, items=None, *, model=_shout, max_batch=4, max_delay_ms=10.0,
         horizon_ms=2000.0, cancel_ms=None) -> ProbeResult:
    if not issubclass(type(cls), type):  # a class (type(cls): no code of the student's runs)
        raise AssertionError(f"{ex}: pass your batcher class itself (e.g. the class name), "
                             f"not {type_name(cls)}")
    if items is None:
        items = [f"r{i}" for i in range(len(arrivals))]
    res = student(ex, probe, lambda f: cls(f, max_batch=max_batch, max_delay_ms=max_delay_ms),
                  arrivals, items, model=model, horizon_ms=horizon_ms, cancel_ms=cancel_ms)
    if res.setup_error is not None:
        if is_stub(ex, res.setup_error):
            raise res.setup_error  # the release stub: "not attempted" (guard.exercise_check)
        raise AssertionError(
            f"{ex}: {class_name(cls)}(infer_fn, max_batch=..., "
            f"max_delay_ms=...) raised {describe_error(res.setup_error)}")
    return res


def _no_hangs(res: ProbeResult, ex: str, when: str) -> None:
    hung = [o.item for o in res.outcomes if o.status == "hung"]
    if hung:
        raise AssertionError(
            f"{ex}: {len(hung)} of {len(res.outcomes)} callers never got an answer {when} "
            f"(e.g. {hung[0]!r}); in a server they would wait forever. Every submit() must "
            f"end with a result or an exception.")


def _right_results(res: ProbeResult, ex: str, model=_shout, allow_errors: bool = False) -> None:
    for o in res.outcomes:
        if o.status == "error" and not allow_errors:
            raise AssertionError(f"{ex}: submit({o.item!r}) raised {describe_error(o.value)}; "
                                 f"the model worked, so it should return a result")
        if o.status == "ok":
            if issubclass(type(o.value), BaseException):
                raise AssertionError(f"{ex}: submit({o.item!r}) returned an exception object "
                                     f"as its result; raise it to the caller instead "
                                     f"(future.set_exception)")
            if type(o.value) is not str:  # the checks' models answer with plain strings
                raise AssertionError(f"{ex}: submit({o.item!r}) returned {describe(o.value)} "
                                     f"instead of its model output (a str); hand each caller "
                                     f"exactly the object the model returned for it")
            want = model([o.item])[0]
            if o.value == want:
                continue
            others = {model([p.item])[0] for p in res.outcomes}
            if o.value in others:
                raise AssertionError(f"{ex}: submit({o.item!r}) returned {describe(o.value)}, which is "
                                     f"another request's output; each caller must get the "
                                     f"output at its own position in the batch")
            raise AssertionError(f"{ex}: submit({o.item!r}) returned {describe(o.value)} instead of "
                                 f"its model output; when the model fails, raise its "
                                 f"exception to the caller (future.set_exception), never a "
                                 f"placeholder result")


def _batches_ok(res: ProbeResult, ex: str, max_batch: int) -> None:
    sizes = res.batch_sizes
    if sizes and max(sizes) > max_batch:
        raise AssertionError(f"{ex}: the model got a batch of {max(sizes)} items with "
                             f"max_batch={max_batch}; never send more than max_batch")
    seen = [x for c in res.calls for x in c.items]
    if len(seen) != len(set(seen)):
        raise AssertionError(f"{ex}: some request went to the model twice; each queued "
                             f"request belongs to exactly one batch")
    if any(len(c.items) == 0 for c in res.calls):
        raise AssertionError(f"{ex}: the model was called with an empty batch; skip empty "
                             f"batches")


def _late(res: ProbeResult, bound_ms: float, idx=None) -> list:
    lat = res.latency_ms if idx is None else res.latency_ms[idx]
    return [float(x) for x in np.atleast_1d(lat) if not x <= bound_ms + EPS_MS]




def oldest_first(obj, ex: str) -> None:
    """Requests queued one after another must leave in arrival order: each batch is the
    oldest ``max_batch`` still waiting, never the newest."""
    arr = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    res = _run(obj, ex, arr, max_batch=3, max_delay_ms=10.0)
    _no_hangs(res, ex, "when 7 requests arrived 1 ms apart (max_batch=3)")
    _right_results(res, ex)
    _batches_ok(res, ex, 3)
    order = {f"r{i}": i for i in range(len(arr))}
    calls = [sorted(order[x] for x in c.items) for c in res.calls]
    for before, after in zip(calls, calls[1:]):
        if max(before) > min(after):
            raise AssertionError(
                f"{ex}: requests r0..r6 arrived in that order, but the model got them in "
                f"batches {[[f'r{i}' for i in c] for c in calls]}; a batch must take the "
                f"oldest waiting requests first (first in, first out), or the newest starve")


def _others_served(res: ProbeResult, ex: str, when: str, gave_up: set) -> None:
    crash = f" (your batcher's task raised {describe_error(res.task_errors[0])})" \
        if res.task_errors else ""
    for o in res.outcomes:
        if o.item in gave_up:
            continue
        if o.status == "cancelled":
            raise AssertionError(f"{ex}: caller {o.item!r} did not give up, yet its request "
                                 f"was cancelled {when}; cancel only the caller that left")
        if o.status != "ok":
            what = "waited forever" if o.status == "hung" else f"got {type_name(o.value)}"
            raise AssertionError(f"{ex}: caller {o.item!r} {what} {when}{crash}; a caller "
                                 f"that gives up must not harm the others: skip its future "
                                 f"(fut.done() is True) instead of setting it")
    _right_results(res, ex)


def cancel_safe(obj, ex: str, *, during_run: bool = False) -> None:
    """One caller gives up while its batch is still forming (and, with ``during_run``, one
    gives up while the model runs): everybody else still gets their own result, and the
    batcher keeps serving."""
    res = _run(obj, ex, [0.0, 0.0, 0.0, 50.0], ["a", "b", "c", "d"], max_batch=4,
               max_delay_ms=10.0, cancel_ms=[None, 5.0, None, None])
    _others_served(res, ex, "after caller 'b' gave up while its batch was forming", {"b"})
    if during_run:
        model = virtual_model(_shout, 20.0)  # the model runs 20 ms; 'q' leaves halfway
        res = _run(obj, ex, [0.0, 0.0, 0.0, 100.0], ["p", "q", "r", "s"], model=model,
                   max_batch=4, max_delay_ms=5.0, cancel_ms=[None, 15.0, None, None])
        _others_served(res, ex, "after caller 'q' gave up while the model was running",
                       {"q"})


OVERLAP_WAIT_S = 0.5  # how long the first model call waits for a second one to start


def concurrent_calls(cls, n: int = 6, max_batch: int = 2) -> tuple[int, list]:
    """Real clock (threads must really run): ``n`` requests at once to
    ``cls(model, max_batch, max_delay_ms=1)``; the sync model holds its first call until a
    second call starts, or ``OVERLAP_WAIT_S`` passes. Returns the most model calls that ran
    at the same time, and what each caller got (a result or an exception)."""
    import asyncio
    import threading
    lock, second = threading.Lock(), threading.Event()
    state = {"active": 0, "peak": 0, "calls": 0}

    def model(items):
        with lock:
            state["active"] += 1
            state["calls"] += 1
            state["peak"] = max(state["peak"], state["active"])
            first = state["calls"] == 1
            if state["active"] > 1:
                second.set()
        try:
            if first:
                second.wait(OVERLAP_WAIT_S)
            return _shout(items)
        finally:
            with lock:
                state["active"] -= 1

    async def scenario():
        batcher = cls(model, max_batch=max_batch, max_delay_ms=1.0)
        try:
            return await asyncio.wait_for(asyncio.gather(
                *(batcher.submit(f"r{i}") for i in range(n)), return_exceptions=True),
                timeout=10 * OVERLAP_WAIT_S)
        finally:
            close = getattr(batcher, "close", None)
            if asyncio.iscoroutinefunction(close):
                await close()
    # a fresh real-clock loop in its own thread: the notebook's loop keeps running
    out = in_thread(lambda: asyncio.run(scenario()), "ex02_5-probe")
    return state["peak"], out
