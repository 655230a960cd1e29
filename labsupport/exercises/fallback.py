"""Let a notebook's later demo cells run the student's own code: the student's answer when
its (visible) check passes, else the lab's own implementation; either way a one-line note
says whose code the demo runs. Grading is unaffected: the graded test cells still check the
student's code.

    Early = solved_or_lab("ex02_2", lambda: EarlyBatcher)
"""
from __future__ import annotations

from functools import partial
from importlib import import_module
from typing import Any, Callable

from ..batching.runtime import MicroBatcher


def _micro(policy: str, **kw) -> type:
    """A MicroBatcher class with the student's constructor ``(infer_fn, max_batch, max_delay_ms)``."""
    class LabBatcher(MicroBatcher):
        def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0):
            super().__init__(infer_fn, max_batch=max_batch, max_delay_ms=max_delay_ms,
                             policy=policy, **kw)
    LabBatcher.__name__ = LabBatcher.__qualname__ = f"MicroBatcher[{policy}]"
    return LabBatcher


def _knee(delays_ms, latency_ms) -> float:
    from ..metrics import find_knee
    return float(delays_ms[find_knee(delays_ms, latency_ms)])


def _sweep(requests, delays_ms, *, policy, max_batch, service):
    from .ex02_knee import reference_sweep
    return reference_sweep(requests, delays_ms, policy=policy, max_batch=max_batch,
                           service=service)


def busy_share_of_run(res) -> float:
    """Share (0..1) of time the model was busy, first arrival to last finish."""
    from ..metrics import utilisation as busy
    return busy(res.batch_start, res.batch_end, float(res.arrival.min()), float(res.finish.max()))


def latency_percentiles(res) -> dict:
    """``{"p50": ms, "p99": ms}`` of the per-request latency."""
    from ..metrics import percentiles
    return percentiles(res.finish - res.arrival, (50, 99))


def pad_batch(seqs, pad_id=0):
    """(ids, mask) right-padded to the longest, both [n, L] (``shapes.pad``)."""
    from ..batching.shapes import pad
    b = pad(seqs, pad_id=pad_id)
    return b.ids, b.mask


def mean_pool(hidden, mask):
    """Mask-weighted mean over positions, L2-normalised: [n, L, d] -> [n, d]."""
    import numpy as np
    from .ex04 import _pool_ref
    return _pool_ref(np.asarray(hidden, dtype=np.float64), np.asarray(mask))


def pick_knobs(service, rate_per_s, slo_ms):
    """The first (max_batch, max_delay_ms) of a small grid whose bucketed p99 meets slo_ms
    on every set of ``slo_traffic(rate_per_s)``; ValueError when none does."""
    from .ex04 import p99_bucketed, slo_traffic
    sets = slo_traffic(rate_per_s)
    for max_batch in (1, 2, 4, 8, 16, 32, 64, 128, 256):
        for delay in (5.0, 20.0, 100.0):
            if all(p99_bucketed(service, tr, max_batch, delay) <= slo_ms for tr in sets):
                return {"max_batch": max_batch, "max_delay_ms": delay}
    raise ValueError(f"no knobs in the grid meet p99 <= {slo_ms} ms at {rate_per_s} req/s")


def kv_budget(config, gpu_bytes, weight_bytes, gpu_memory_utilization=0.9):
    """KV bytes per token, and the tokens of KV that fit beside the weights."""
    from ..decoder.kvmath import kv_budget_tokens, kv_bytes_per_token
    return {"bytes_per_token": kv_bytes_per_token(config),
            "kv_budget_tokens": kv_budget_tokens(config, gpu_bytes, weight_bytes,
                                                 gpu_memory_utilization)}


def pick_max_seqs(rows, slo_ttft_ms, slo_tpot_ms):
    """The max_seqs with the most goodput among rows meeting both p99 SLOs (ties: smaller)."""
    from .slo_pick import pick
    return pick(rows, slo_ttft_ms, slo_tpot_ms)


def _ref(module: str, name: str) -> Callable[[], Any]:
    return lambda: getattr(import_module(f"labsupport.{module}"), name)


_knee.__name__ = "find_knee"
_sweep.__name__ = "reference_sweep"

LAB: dict[str, Callable[[], Any]] = {  # exercise id -> the lab's own answer
    "ex02_1": partial(_micro, "window"),
    "ex02_2": partial(_micro, "early"),
    "ex02_3": partial(_micro, "work_conserving"),
    "ex02_4": partial(_micro, "work_conserving", isolate_errors=False),
    "ex02_5": partial(_micro, "work_conserving"),
    "ex02_6": partial(_micro, "work_conserving"),
    "ex02_9": partial(_micro, "work_conserving"),
    "ex02_7": lambda: _sweep,
    "ex02_8": lambda: _knee,
    "ex01_1": lambda: busy_share_of_run,
    "ex01_2": lambda: latency_percentiles,
    "ex01_3": _ref("queueing", "md1_wait_ms"),
    "ex03_1": lambda: pad_batch,
    "ex04_1": lambda: mean_pool,
    "ex04_3": lambda: pick_knobs,
    "ex05_4": lambda: kv_budget,
    "ex05_5": _ref("decoder.tokentimes", "token_metrics"),
    "ex05_6": _ref("decoder.roofline", "crossover_batch"),
    "ex06_7": _ref("exercises.ex06_speedup", "speedup_ref"),
    "ex06_9": _ref("decoder.ragged", "packed_mask"),
    "ex06_8": _ref("decoder.blockpool", "RefCountedPool"),
    "ex06_4": _ref("decoder.rules", "grow_or_preempt"),
    "ex06_2": _ref("decoder.rules", "kv_admission"),
    "ex06_5": _ref("decoder.rules", "admit_waiting"),
    "ex06_10": _ref("decoder.kvcache", "cached_prefix"),
    "ex06_6": lambda: pick_max_seqs,
    "ex09_1": _ref("exercises.challenge", "SloBuckets"),
}


def is_solved(ex_id: str, get: Callable[[], Any]) -> tuple[bool, Any]:
    """(passes its visible check, the object) — ``get`` returns the student's object."""
    try:
        obj = get()
    except (NameError, NotImplementedError):
        return False, None
    check = getattr(import_module(f"labsupport.exercises.{ex_id.split('_')[0]}"),
                    f"check_{ex_id}")
    check = getattr(check, "__wrapped__", check)  # the stub fails here: no "not attempted" note
    try:
        check(obj)
    except Exception:  # a failing, crashing or unattempted answer: the demo uses the lab's
        return False, obj
    return True, obj


def solved_or_lab(ex_id: str, get: Callable[[], Any], lab: Any = None) -> Any:
    """The student's answer if solved, else the lab's (``lab`` or ``LAB[ex_id]()``); prints
    which one the demo runs."""
    ok, obj = is_solved(ex_id, get)
    if ok:
        print(f"using your {getattr(obj, '__name__', type(obj).__name__)}: {ex_id} passes "
              "its checks")
        return obj
    lab = LAB[ex_id]() if lab is None else lab
    print(f"using the lab's {getattr(lab, '__name__', type(lab).__name__)}: "
          f"{ex_id} is not solved yet")
    return lab
