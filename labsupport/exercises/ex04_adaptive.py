"""Check for ex04_4 (notebook 04): the SLO-aware adaptive batcher's dispatch rule,
``dispatch_at(now_ms, oldest_arrival_ms, n_waiting, max_batch, slo_ms, predict_ms) -> ms``.
The lab's own rule is ``labsupport.batching.adaptive.dispatch_at``."""
from __future__ import annotations

import math

import numpy as np

from ..batching.adaptive import dispatch_at as lab_dispatch_at
from ..costs import ServiceModel
from .guard import bounded, case_rng, exercise_check, require_callable
from .plain import plain_number

TOY = ServiceModel().cost                    # the lab's toy model
SLOW = ServiceModel(40.0, 2.0).cost         # slower than the SLO below: always late
CURVED = lambda n: 4.0 + 1.5 * math.sqrt(n)  # noqa: E731  not a straight line


def _cases(hidden: bool) -> list[tuple[str, tuple]]:
    """(kind, (now, oldest, n, max_batch, slo, predict)) — kinds name what a case tests."""
    if not hidden:
        return [("wait", (0.0, 0.0, 1, 8, 50.0, TOY)),
                ("wait", (0.0, -10.0, 4, 8, 50.0, TOY)),
                ("wait", (30.0, 20.0, 9, 16, 40.0, CURVED)),
                ("due", (44.8, 0.0, 1, 8, 50.0, TOY)),
                ("full", (3.0, 0.0, 8, 8, 50.0, TOY)),
                ("full", (3.0, 0.0, 12, 8, 50.0, TOY)),
                ("late", (60.0, 0.0, 2, 8, 50.0, TOY)),
                ("late", (0.0, 0.0, 1, 8, 30.0, SLOW))]
    rng = case_rng("ex04_4", True)
    out = []
    for _ in range(12):
        now = float(rng.uniform(0, 100))
        mb = int(rng.integers(2, 65))
        n = int(rng.integers(1, mb))
        model = ServiceModel(float(rng.uniform(1, 10)), float(rng.uniform(0, 1))).cost
        slo = model(n) + float(rng.uniform(5, 150))
        oldest = now - float(rng.uniform(0, slo - model(n))) if rng.random() < 0.7 \
            else now - slo - 1.0
        out.append(("wait", (now, oldest, n, mb, slo, model)))
    mb = int(rng.integers(2, 129))
    now = float(rng.uniform(1.0, 50.0))
    out.append(("full", (now, now - float(rng.uniform(0.0, 5.0)), mb + int(rng.integers(0, 3)),
                         mb, float(rng.uniform(20.0, 200.0)), CURVED)))
    return out


HINTS = {
    "wait": "the batch must START by the oldest request's deadline (oldest_arrival_ms + "
            "slo_ms) minus the time it will RUN, predict_ms(n_waiting) for the n_waiting "
            "requests it holds",
    "due": "its latest start has come: return now_ms (or that same instant)",
    "full": "a full batch (n_waiting >= max_batch) cannot grow: waiting only adds latency, "
            "so return now_ms",
    "late": "the oldest request is already late (its latest start has passed): waiting "
            "cannot help and a time in the past cannot be waited for; return now_ms",
}


@exercise_check("ex04_4")
def check_ex04_4(obj, hidden: bool = False) -> None:
    """``obj(now_ms, oldest_arrival_ms, n_waiting, max_batch, slo_ms, predict_ms) -> float``:
    ``now_ms`` when full or late, else ``oldest_arrival_ms + slo_ms - predict_ms(n_waiting)``."""
    ex = "ex04_4"
    require_callable(ex, obj, "dispatch_at")
    for kind, args in _cases(hidden):
        want = lab_dispatch_at(*args)
        kind = "late" if kind == "wait" and want == args[0] else kind
        got = plain_number(ex, bounded(ex, obj, *args), "your dispatch time")
        if not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9):
            now, oldest, n, mb, slo, _ = args
            raise AssertionError(
                f"{ex}: at now_ms={now:g} with {n} waiting (max_batch={mb}), the oldest "
                f"arrived at {oldest:g} ms, slo_ms={slo:g}: you return {got:g}, the batch "
                f"should go at {want:g}. Hint: {HINTS[kind]}")


__all__ = ["check_ex04_4"]
