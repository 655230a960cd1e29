"""The SLO-aware adaptive policy: wait as long as the latency target allows, no longer.

The dispatch rule (``should_dispatch``): with ``n`` requests waiting, the batch would run
``predict(n)`` ms (the service-time fit of ``costs.py``). The oldest request must finish by
its deadline, ``arrival + slo_p99_ms``; so the batch must start by
``deadline - predict(n) - margin``. Until then, waiting only grows the batch (more
requests per launch); at that instant, or at once when waiting cannot help (the batch is
full, or that instant has already passed: the request is late), it goes.

``margin``: the predicted cost of one more request (an arrival just before the start makes
the batch one larger, so it runs that much longer) plus ``slack_ms`` for the runtime's own
handoff (the event loop → worker thread hop, ~0.1–0.4 ms on a laptop; 0 in the simulator).

The fit may be refit online from observed batches (``observe``), so the prediction follows
the machine it runs on; the simulator and the runtime both feed it.
"""
from __future__ import annotations

from collections import deque
from typing import Callable

from ..costs import ServiceModel
from ..validate import check_float, check_int
from .config import BatchConfig
from .policies import POLICIES, WAIT, Policy, Wait


def latest_start(oldest_arrival_ms: float, n_waiting: int, slo_ms: float,
                 predict_ms: Callable[[int], float], margin_ms: float = 0.0) -> float:
    """The last moment (ms) a batch of ``n_waiting`` can start and its oldest request still
    finish within ``slo_ms`` of arriving: ``arrival + slo - predict(n) - margin``."""
    return oldest_arrival_ms + slo_ms - predict_ms(n_waiting) - margin_ms


def should_dispatch(now_ms: float, oldest_arrival_ms: float, n_waiting: int, max_batch: int,
                    slo_ms: float, predict_ms: Callable[[int], float],
                    margin_ms: float = 0.0) -> bool:
    """True when the batch should go now: it is full (``n_waiting >= max_batch``), or the
    latest start that keeps the oldest request within ``slo_ms`` has come (or passed)."""
    if n_waiting >= max_batch:
        return True
    return now_ms >= latest_start(oldest_arrival_ms, n_waiting, slo_ms, predict_ms, margin_ms)


class Adaptive(Policy):
    """Dispatch at the oldest request's deadline minus the predicted service time (see the
    module docstring); at once when the batch is full or the request is already late.
    ``service``: the starting fit (default: the toy model, 5 ms + 0.2 ms/item).
    ``refit_every``: refit from the last ``history`` observed batches every that many
    batches (0: never refit). ``slack_ms``: extra margin for the runtime's handoff."""
    name = "adaptive"

    def __init__(self, cfg: BatchConfig | None = None, service: ServiceModel | None = None,
                 refit_every: int = 16, history: int = 256, slack_ms: float = 0.0, **knobs):
        self.initial = service or ServiceModel()
        self.refit_every = check_int("refit_every", refit_every, 0)
        self.history = check_int("history", history, 3)
        self.slack_ms = check_float("slack_ms", slack_ms, 0.0, 1000.0)
        super().__init__(cfg, **knobs)

    def reset(self) -> None:
        self.service = self.initial
        self._seen: deque[tuple[int, int, float]] = deque(maxlen=self.history)
        self._since = 0

    def observe(self, size: int, padded_tokens: int, ms: float) -> None:
        """One executed batch: ``size`` requests, ``padded_tokens``, ``ms`` service time."""
        self._seen.append((size, padded_tokens, ms))
        self._since += 1
        if not self.refit_every or self._since < self.refit_every or len(self._seen) < 8:
            return
        self._since = 0
        sizes, tokens, times = zip(*self._seen)
        if len(set(sizes)) > 1:  # one size alone cannot separate fixed from per-item cost
            self.service = ServiceModel.fit(sizes, tokens, times)

    def margin_ms(self) -> float:
        """Cost of one more request (per item) plus the handoff slack."""
        return self.service.per_item_ms + self.slack_ms

    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        batch = self.head(queue)
        if self.closed(queue, batch):
            return batch
        items = [queue[k] for k in batch.indices]
        padded = self.padded_tokens(items)
        at = latest_start(queue[0].arrival, len(items), self.cfg.slo_p99_ms,
                          lambda n: self.service.cost(n, padded), self.margin_ms())
        return batch if now >= at else Wait(at)

    def seal(self, queue, now):
        return self.sealed_head(queue)

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, slo_p99_ms={self.cfg.slo_p99_ms})"



POLICIES["adaptive"] = Adaptive
