"""Checks for notebook 02's faults a batcher must survive: a model that raises (ex02_4), a synchronous model that would
block the event loop or run twice at once (ex02_5), a model that returns the wrong number of
outputs (ex02_6), and callers who give up: no work for them, no harm to others (ex02_9). Same scripted scenarios on the virtual
clock as ``ex02``.
"""
from __future__ import annotations

from ..sim.scenarios import ProbeResult
from .batcher_probe import (OVERLAP_WAIT_S, _batches_ok, _no_hangs, _others_served,
                            _right_results, _run, _shout, cancel_safe, concurrent_calls)
from .guard import case_rng, exercise_check, student
from .plain import describe, describe_error


# ---- ex02_4: an exception reaches its callers; the batcher keeps serving --------------

def _fussy(items: list) -> list:
    """A model that fails on any batch containing ``poison``."""
    if "poison" in items:
        raise ValueError("the model cannot handle 'poison'")
    return _shout(items)


def _errors_reach_callers(res: ProbeResult, ex: str, when: str) -> None:
    _no_hangs(res, ex, when)
    _right_results(res, ex, model=_shout, allow_errors=True)
    for o in res.outcomes:
        if o.item == "poison" and o.status != "error":
            raise AssertionError(f"{ex}: the request that made the model raise got no "
                                 f"exception; pass the model's exception to its caller")


@exercise_check("ex02_4")
def check_ex02_4(obj, hidden: bool = False) -> None:
    ex = "ex02_4"
    res = _run(obj, ex, [0.0, 0.0, 0.0, 50.0], ["a", "poison", "b", "c"], model=_fussy,
               max_batch=4, max_delay_ms=10.0)
    _errors_reach_callers(res, ex, "after the model raised")
    if res.outcomes[3].status != "ok":
        raise AssertionError(f"{ex}: after one batch failed, a later request was not served; "
                             f"the batcher must keep working after a model error")
    if not hidden:
        return
    rng = case_rng(ex, True)
    mb, n_batches = int(rng.integers(2, 4)), int(rng.integers(2, 4))
    items = [f"x{i}" for i in range(mb * n_batches)]
    bad = rng.choice(n_batches, 2, replace=False)  # two of the batches hold a poison
    for b in bad:
        items[int(b) * mb + int(rng.integers(0, mb))] = "poison"
    items.append("z")
    arr = [0.0] * (mb * n_batches) + [float(rng.uniform(60.0, 200.0))]
    res = _run(obj, ex, arr, items, model=_fussy, max_batch=mb,
               max_delay_ms=float(rng.uniform(2.0, 10.0)))
    _errors_reach_callers(res, ex, "after two batches failed")
    if res.outcomes[-1].status != "ok":
        raise AssertionError(f"{ex}: after two failed batches a later request was not served")


# ---- ex02_5: the model runs off the event loop, one batch at a time ---------------------

@exercise_check("ex02_5")
def check_ex02_5(obj, hidden: bool = False) -> None:
    ex = "ex02_5"
    res = _run(obj, ex, [0.0, 0.0, 0.0], max_batch=4, max_delay_ms=10.0)
    _no_hangs(res, ex, "with a synchronous model")
    _right_results(res, ex)
    if not res.calls:
        raise AssertionError(f"{ex}: the model was never called")
    if any(c.on_loop_thread for c in res.calls):
        raise AssertionError(f"{ex}: the synchronous model ran on the event loop's thread, so "
                             f"nothing else can happen while it computes; run it in a worker "
                             f"thread and await it (loop.run_in_executor with a "
                             f"ThreadPoolExecutor(max_workers=1) of your batcher's own)")
    _one_at_a_time(obj, ex, 6, 2)
    if not hidden:
        return
    rng = case_rng(ex, True)
    mb, delay = int(rng.integers(2, 4)), float(rng.uniform(2.0, 8.0))
    arr = [0.0] * int(rng.integers(mb + 1, 3 * mb + 1)) + \
        [float(rng.uniform(delay + 10.0, 60.0))] * int(rng.integers(1, mb + 1))
    res = _run(obj, ex, arr, max_batch=mb, max_delay_ms=delay)
    _no_hangs(res, ex, "over several batches")
    _right_results(res, ex)
    _batches_ok(res, ex, mb)
    if any(c.on_loop_thread for c in res.calls):
        raise AssertionError(f"{ex}: some batches still ran the model on the event loop")
    max_batch = int(rng.integers(2, 5))
    _one_at_a_time(obj, ex, max_batch * int(rng.integers(2, 4)) + int(rng.integers(0, 2)),
                   max_batch)


def _one_at_a_time(obj, ex: str, n: int, max_batch: int) -> None:
    try:
        peak, out = student(ex, concurrent_calls, obj, n, max_batch)
    except TimeoutError:
        raise AssertionError(f"{ex}: {n} requests (max_batch={max_batch}) were not all "
                             f"answered within {10 * OVERLAP_WAIT_S:.0f} s") from None
    for i, o in enumerate(out):
        if issubclass(type(o), BaseException):
            raise AssertionError(f"{ex}: submit('r{i}') raised {describe_error(o)}")
        if type(o) is not str or o != _shout([f"r{i}"])[0]:
            raise AssertionError(f"{ex}: submit('r{i}') returned {describe(o)}, not its own "
                                 f"output")
    if peak > 1:
        raise AssertionError(
            f"{ex}: {peak} batches ran the model at the same time ({n} requests, "
            f"max_batch={max_batch}, a 1 ms window, a slow model). Off the loop, the timer "
            "can fire again while a batch computes: run every batch in ONE worker thread "
            "(a ThreadPoolExecutor(max_workers=1) passed to loop.run_in_executor), or hold "
            "an asyncio.Lock around the call, so batches run one after another")


# ---- ex02_6: a wrong number of outputs is an error for the whole batch ----------------

def _sloppy(items: list) -> list:
    """A model that loses one output when ``drop`` is in the batch, adds one for ``extra``."""
    out = _shout(items)
    if "drop" in items:
        return out[:-1]
    if "extra" in items:
        return out + ["?"]
    return out


def _whole_batch_failed(res: ProbeResult, ex: str, idx, what: str) -> None:
    bad = [res.outcomes[i] for i in idx]
    ok = [o.item for o in bad if o.status == "ok"]
    if ok:
        raise AssertionError(f"{ex}: when the model returned {what}, caller {ok[0]!r} still "
                             f"got a result; with a wrong count nobody can tell which output "
                             f"belongs to whom, so fail every caller of that batch with a "
                             f"clear error")


def _answered(o) -> bool:
    """The caller got its own model output (a plain str, compared as one)."""
    return o.status == "ok" and type(o.value) is str and o.value == _shout([o.item])[0]


@exercise_check("ex02_6")
def check_ex02_6(obj, hidden: bool = False) -> None:
    ex = "ex02_6"
    res = _run(obj, ex, [0.0, 0.0, 0.0, 50.0], ["a", "drop", "b", "c"], model=_sloppy,
               max_batch=4, max_delay_ms=10.0)
    _no_hangs(res, ex, "when the model returned one output too few")
    _whole_batch_failed(res, ex, range(3), "one output too few")
    if not _answered(res.outcomes[3]):
        raise AssertionError(f"{ex}: a later, well-formed batch was not answered correctly")
    if not hidden:
        return
    rng = case_rng(ex, True)
    mb, delay = int(rng.integers(2, 5)), float(rng.uniform(2.0, 10.0))
    first = [f"e{i}" for i in range(mb)]
    first[int(rng.integers(0, mb))] = "extra"
    later = [f"g{i}" for i in range(int(rng.integers(1, mb + 1)))]
    arr = [0.0] * mb + [float(rng.uniform(delay + 20.0, 80.0))] * len(later)
    res = _run(obj, ex, arr, first + later, model=_sloppy, max_batch=mb, max_delay_ms=delay)
    _no_hangs(res, ex, "when the model returned one output too many")
    _whole_batch_failed(res, ex, range(mb), "one output too many")
    for o in res.outcomes[mb:]:
        if not _answered(o):
            raise AssertionError(f"{ex}: a later, well-formed batch was not answered correctly")


# ---- ex02_9: a caller that gives up costs the model nothing -------------------------------

def _no_work_for_the_gone(res: ProbeResult, ex: str, cancel: list) -> None:
    """No model call holds an item whose caller had left before that call, and no call is
    empty (a batch whose callers all left runs nothing)."""
    for call in res.calls:
        if not call.items:
            raise AssertionError(f"{ex}: the model was called with an empty batch at "
                                 f"{call.t_ms:.1f} ms; when every caller of a batch has left, "
                                 "do not call the model at all")
        for o, c in zip(res.outcomes, cancel):
            if c is not None and c < call.t_ms and o.item in call.items:
                raise AssertionError(
                    f"{ex}: the model computed {o.item!r} at {call.t_ms:.1f} ms for a caller "
                    f"who had left at {c:.1f} ms; drop the requests whose future is done "
                    "before the batch goes to the model")


@exercise_check("ex02_9")
def check_ex02_9(obj, hidden: bool = False) -> None:
    """``obj``: a batcher class. Callers who left before their batch ran cost the model
    nothing (their items are dropped; a batch of only such callers makes no call); a caller
    who leaves while the model runs is skipped at delivery; everyone else is answered."""
    ex = "ex02_9"
    cancel_safe(obj, ex, during_run=True)
    cancel = [None, 5.0, None, None]
    res = _run(obj, ex, [0.0, 0.0, 0.0, 50.0], ["a", "b", "c", "d"], max_batch=4,
               max_delay_ms=10.0, cancel_ms=cancel)
    _no_work_for_the_gone(res, ex, cancel)
    cancel = [3.0, 4.0, None]  # the whole first window leaves before it fires
    res = _run(obj, ex, [0.0, 0.0, 30.0], ["x", "y", "z"], max_batch=4, max_delay_ms=10.0,
               cancel_ms=cancel)
    _others_served(res, ex, "after both callers of the first batch gave up", {"x", "y"})
    _no_work_for_the_gone(res, ex, cancel)
    if not hidden:
        return
    rng = case_rng(ex, True)
    n, mb, delay = int(rng.integers(4, 10)), int(rng.integers(2, 5)), float(rng.uniform(6.0, 15.0))
    gone = set(rng.choice(n, int(rng.integers(2, n // 2 + 1)), replace=False).tolist())
    cancel = [float(rng.uniform(0.5, delay - 1.0)) if i in gone else None for i in range(n)]
    res = _run(obj, ex, [0.0] * n, [f"c{i}" for i in range(n)], max_batch=mb,
               max_delay_ms=delay, cancel_ms=cancel)
    _no_hangs(res, ex, f"when {len(gone)} of {n} callers gave up (max_batch={mb})")
    for i, o in enumerate(res.outcomes):
        if i not in gone and o.status != "ok":
            raise AssertionError(f"{ex}: with {len(gone)} of {n} callers gone, {o.item!r} got "
                                 f"no result; skip every cancelled future, not only the first")
    _right_results(res, ex)
    _no_work_for_the_gone(res, ex, cancel)
