"""Checks for notebook 02 (the micro-batcher). Each batcher check drives the student's class
through scripted arrivals on the virtual clock (``labsupport.sim.scenarios``), so a check takes
milliseconds and gives the same verdict every time. Each check tests one behaviour only.
The shared pieces live in ``batcher_probe``; the checks of the faults a batcher must survive
(ex02_4, 5, 6, 9) in ``ex02_faults``, the sweep and knee checks in ``ex02_knee``.
"""
from __future__ import annotations

import numpy as np

from ..batching.runtime import MicroBatcher
from ..sim.scenarios import virtual_model
from .batcher_probe import (EPS_MS, _batches_ok, _late, _no_hangs, _right_results, _run,
                            _shout, cancel_safe, oldest_first)
from .guard import case_rng, exercise_check


# ---- ex02_1: the windowed micro-batcher -----------------------------------------------

@exercise_check("ex02_1")
def check_ex02_1(obj, hidden: bool = False) -> None:
    """``obj``: a batcher class ``(infer_fn, max_batch, max_delay_ms)`` with ``submit``."""
    ex = "ex02_1"
    res = _run(obj, ex, [0.0], max_batch=4, max_delay_ms=10.0)
    _no_hangs(res, ex, "when a single request arrived")
    _right_results(res, ex)
    if _late(res, 10.0):
        raise AssertionError(f"{ex}: a lone request took {res.latency_ms[0]:.1f} ms with "
                             f"max_delay_ms=10; it must go when the window closes")
    res = _run(obj, ex, [0.0] * 10, max_batch=4, max_delay_ms=10.0)
    _no_hangs(res, ex, "when 10 requests arrived together (max_batch=4)")
    _right_results(res, ex)
    _batches_ok(res, ex, 4)
    if len(res.calls) > 4:
        raise AssertionError(f"{ex}: 10 requests that arrived together took {len(res.calls)} "
                             f"model calls with max_batch=4; requests waiting together "
                             f"should share a batch")
    late = _late(res, 30.0)
    if late:
        raise AssertionError(f"{ex}: with 10 requests, max_batch=4 and a 10 ms window the "
                             f"last answer came after {max(late):.1f} ms; every batch must "
                             f"leave within one window of the previous one")
    oldest_first(obj, ex)
    cancel_safe(obj, ex)
    if not hidden:
        return
    rng = case_rng(ex, True)
    n, span = int(rng.integers(30, 61)), float(rng.uniform(60.0, 150.0))
    mb, delay = int(rng.integers(4, 13)), float(rng.uniform(3.0, 8.0))
    arr = np.sort(rng.uniform(0, span, n))
    arr[1] = arr[0] + rng.uniform(0.0, delay / 2)  # the first window certainly gets company
    res = _run(obj, ex, arr, max_batch=mb, max_delay_ms=delay)
    _no_hangs(res, ex, "under steady random arrivals")
    _right_results(res, ex)
    _batches_ok(res, ex, mb)
    if len(res.calls) >= n:
        raise AssertionError(f"{ex}: {n} requests in {span:.0f} ms with a {delay:.1f} ms "
                             f"window never shared a batch; gather what arrives within the "
                             f"window")
    k = int(rng.integers(2, 7))
    res = _run(obj, ex, [0.0] * k, max_batch=1, max_delay_ms=float(rng.uniform(1.0, 5.0)))
    _no_hangs(res, ex, "with max_batch=1")
    _right_results(res, ex)
    _batches_ok(res, ex, 1)


# ---- ex02_2: a full batch goes at once ------------------------------------------------

@exercise_check("ex02_2")
def check_ex02_2(obj, hidden: bool = False) -> None:
    ex = "ex02_2"
    res = _run(obj, ex, [0.0] * 4, max_batch=4, max_delay_ms=20.0)
    _no_hangs(res, ex, "when a full batch arrived at once")
    _right_results(res, ex)
    _batches_ok(res, ex, 4)
    late = _late(res, 0.0)
    if late:
        raise AssertionError(f"{ex}: max_batch=4 requests arrived together but waited "
                             f"{max(late):.1f} ms (window 20 ms); a full batch cannot grow, "
                             f"so it should go at once")
    res = _run(obj, ex, [0.0] * 9, max_batch=4, max_delay_ms=20.0)
    _no_hangs(res, ex, "when 9 requests arrived together (max_batch=4)")
    _right_results(res, ex)
    _batches_ok(res, ex, 4)
    fast = int(np.sum(res.latency_ms <= EPS_MS))
    if fast < 8:
        raise AssertionError(f"{ex}: of 9 requests arriving together with max_batch=4, only "
                             f"{fast} were answered at once; each full batch should go "
                             f"immediately, only the leftover waits for the window")
    if _late(res, 20.0):
        raise AssertionError(f"{ex}: the leftover request waited longer than the 20 ms "
                             f"window; keep the timer for requests that do not fill a batch")
    if not hidden:
        return
    rng = case_rng(ex, True)
    mb, window = int(rng.integers(3, 6)), float(rng.uniform(30.0, 80.0))
    fill = np.concatenate([[0.0], np.sort(rng.uniform(1.0, 0.6 * window, mb - 1))])
    t_fill = float(fill[-1])
    arr = [*fill.tolist(), t_fill + float(rng.uniform(1.0, window / 4))]
    res = _run(obj, ex, arr, max_batch=mb, max_delay_ms=window)
    _no_hangs(res, ex, f"when a batch filled up over {t_fill:.0f} ms")
    _right_results(res, ex)
    _batches_ok(res, ex, mb)
    if _late(res, t_fill, idx=slice(0, mb)):
        raise AssertionError(f"{ex}: a batch that filled up when its {mb}th request arrived at "
                             f"{t_fill:.1f} ms still waited for the timer; check the size on "
                             f"every arrival, not only on the first")
    if _late(res, window, idx=slice(mb, mb + 1)):
        raise AssertionError(f"{ex}: a request arriving after a full batch left waited more "
                             f"than one window")


# ---- ex02_3: a lone request on an idle server goes at once ----------------------------

SERVICE = (5.0, 0.5)  # the checks' model time: 5 ms + 0.5 ms per item


def _svc(n: int) -> float:
    return SERVICE[0] + SERVICE[1] * n


@exercise_check("ex02_3")
def check_ex02_3(obj, hidden: bool = False) -> None:
    ex = "ex02_3"
    model = virtual_model(_shout, *SERVICE)
    res = _run(obj, ex, [0.0], model=model, max_batch=8, max_delay_ms=20.0)
    _no_hangs(res, ex, "when one request arrived at an idle batcher")
    _right_results(res, ex)
    if _late(res, _svc(1)):
        raise AssertionError(f"{ex}: a lone request on an idle batcher took "
                             f"{res.latency_ms[0]:.1f} ms, but the model needs only "
                             f"{_svc(1):.1f} ms; when nothing is running, waiting gains "
                             f"nothing: dispatch at once")
    arr = np.arange(30, dtype=float)  # one request per ms: the model is busy all the time
    res = _run(obj, ex, arr, model=model, max_batch=8, max_delay_ms=20.0)
    _no_hangs(res, ex, "under a steady stream (1 request/ms)")
    _right_results(res, ex)
    _batches_ok(res, ex, 8)
    if len(res.calls) > 15:
        raise AssertionError(f"{ex}: 30 requests at 1 per ms took {len(res.calls)} model "
                             f"calls; while a batch runs, new arrivals should queue and go "
                             f"together when it finishes, not one by one")
    bound = 20.0 + 2 * _svc(8)
    if _late(res, bound):
        raise AssertionError(f"{ex}: under a steady stream a request waited "
                             f"{np.nanmax(res.latency_ms):.1f} ms; once the model finishes, "
                             f"the queued requests should go soon")
    if not hidden:
        return
    rng = case_rng(ex, True)
    delay = float(rng.uniform(20.0, 60.0))
    gaps = rng.uniform(delay + 3 * _svc(1), delay + 150.0, int(rng.integers(3, 7)) - 1)
    arr = np.concatenate([[0.0], np.cumsum(gaps)])
    res = _run(obj, ex, arr, model=model, max_batch=int(rng.integers(2, 9)), max_delay_ms=delay)
    _no_hangs(res, ex, "with requests far apart")
    _right_results(res, ex)
    if _late(res, _svc(1)):
        raise AssertionError(f"{ex}: each of several well-separated requests should go at "
                             f"once; one took {np.nanmax(res.latency_ms):.1f} ms")


# ---- the lab's answers, for notebook 02's demo cells while an exercise is unsolved -------

def lab_batcher(policy: str, **kw) -> type:
    """``MicroBatcher`` with ``policy``, behind the students' constructor
    ``(infer_fn, max_batch, max_delay_ms)``."""
    class LabBatcher(MicroBatcher):
        def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0):
            super().__init__(infer_fn, max_batch=max_batch, max_delay_ms=max_delay_ms,
                             policy=policy, **kw)
    LabBatcher.__name__ = LabBatcher.__qualname__ = f"MicroBatcher[{policy}]"
    return LabBatcher


LabWindowBatcher = lab_batcher("window")                             # ex02_1
LabEarlyBatcher = lab_batcher("early")                               # ex02_2
LabEagerBatcher = lab_batcher("work_conserving")                     # ex02_3, 5, 6, 9
LabSafeBatcher = lab_batcher("work_conserving", isolate_errors=False)  # ex02_4
