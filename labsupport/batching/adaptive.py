"""The SLO-aware adaptive policy: wait as long as the latency target allows, no longer.

The dispatch rule (``dispatch_at``): with ``n`` requests waiting, the batch would run
``predict(n)`` ms (the service-time fit of ``costs.py``). The oldest request must finish by
its deadline, ``arrival + slo_p99_ms``; so the batch must start by
``deadline - predict(n) - margin``. Until then, waiting only grows the batch (more
requests per launch); at that instant, or at once when waiting cannot help (the batch is
full, or that instant has already passed: the request is late), it goes.

``Adaptive.decide`` adds two refinements, measured by ``labsupport bench adaptive``:
late requests (they would miss the SLO even in a batch that starts now) ride along where
there is room but never ahead of one that can still make it, so a burst does not make
every later request late too (goodput under overload); and with ``amortize`` (default) it
waits at most one predicted run time after the oldest live request (that already halves
the per-request launch cost; waiting longer buys little and leaves no slack for a burst).

Batch size: a batch takes the oldest requests (live first) while it still runs within
the SLO and each newcomer costs less inside it than alone (rows pad to the longest: with a
per-token cost, one long row can make a batch dearer than two); where it stops, the batch
is closed and goes.

``margin``: the predicted cost of one more request (an arrival just before the start makes
the batch one larger, so it runs that much longer; ``decide`` predicts the batch one larger,
its rows padded as long as the longest row of the recent batches) plus ``slack_ms`` for the
runtime's own handoff (the event loop → worker thread hop, ~0.1–0.4 ms on a laptop; 0 in the simulator).

The fit may be refit online from observed batches (``observe``), so the prediction follows
the machine it runs on; the simulator and the runtime both feed it.
"""
from __future__ import annotations

from collections import deque
from typing import Callable

from ..costs import ServiceModel
from ..validate import check_float, check_int
from .config import BatchConfig
from .policies import WAIT, Dispatch, Policy, Wait


def latest_start(oldest_arrival_ms: float, n_waiting: int, slo_ms: float,
                 predict_ms: Callable[[int], float]) -> float:
    """The last moment (ms) a batch of ``n_waiting`` can start and its oldest request still
    finish within ``slo_ms`` of arriving: ``arrival + slo - predict(n)``."""
    return oldest_arrival_ms + slo_ms - predict_ms(n_waiting)


def dispatch_at(now_ms: float, oldest_arrival_ms: float, n_waiting: int, max_batch: int,
                slo_ms: float, predict_ms: Callable[[int], float]) -> float:
    """When (ms) a batch of the ``n_waiting`` requests should start: ``now_ms`` when it is
    full (``n_waiting >= max_batch``) or the oldest is already late (its latest start has
    passed); else that latest start, ``oldest_arrival + slo - predict(n_waiting)``.
    (Exercise ex04_4 has students write this rule; ``Adaptive(rule=…)`` runs theirs.)"""
    if n_waiting >= max_batch:
        return now_ms
    return max(now_ms, latest_start(oldest_arrival_ms, n_waiting, slo_ms, predict_ms))


class Adaptive(Policy):
    """Dispatch at the oldest request's deadline minus the predicted service time (see the
    module docstring); at once when the batch is full or the request is already late.
    ``service``: the starting fit (default: the toy model, ``ServiceModel()``).
    ``refit_every``: refit from the last ``history`` observed batches every that many
    batches (0: never refit). ``slack_ms``: extra margin for the runtime's handoff.
    ``amortize``: wait at most one predicted run time after the oldest live request.
    ``rule``: the dispatch rule, ``dispatch_at``'s signature (default: ``dispatch_at``)."""
    name = "adaptive"

    def __init__(self, cfg: BatchConfig | None = None, service: ServiceModel | None = None,
                 refit_every: int = 16, history: int = 256, slack_ms: float = 0.0,
                 amortize: bool = True, rule: Callable[..., float] | None = None, **knobs):
        self.amortize = bool(amortize)
        self.rule = rule or dispatch_at
        if not callable(self.rule):
            raise ValueError(f"rule must be a function like dispatch_at, got {rule!r:.60}")
        self.initial = service or ServiceModel()
        self.refit_every = check_int("refit_every", refit_every, 0)
        self.history = check_int("history", history, 3)
        self.slack_ms = check_float("slack_ms", slack_ms, 0.0, 1000.0)
        super().__init__(cfg, **knobs)

    def reset(self) -> None:
        self.service = self.initial
        self._seen: deque[tuple[int, int, float]] = deque(maxlen=self.history)
        self._longest: deque[int] = deque(maxlen=64)  # longest row of each recent batch
        self._since = 0

    def observe(self, size: int, padded_tokens: int, ms: float) -> None:
        """One executed batch: ``size`` requests, ``padded_tokens``, ``ms`` service time."""
        self._seen.append((size, padded_tokens, ms))
        self._longest.append(padded_tokens // max(size, 1))
        self._since += 1
        if not self.refit_every or self._since < self.refit_every or len(self._seen) < 8:
            return
        self._since = 0
        sizes, tokens, times = zip(*self._seen)
        if len(set(sizes)) > 1:  # one size alone cannot separate fixed from per-item cost
            self.service = ServiceModel.fit(sizes, tokens, times)

    def _fitting(self, queue, members) -> tuple[int, int]:
        """How many of ``members`` (in order, at most ``max_batch``) one batch can hold and
        still run within the SLO, rows padded to their longest (at least one), and that
        longest: a bigger batch would make its own oldest request late."""
        cost, slo = self.service.cost, self.cfg.slo_p99_ms
        k, longest = 0, 0
        for j in members:
            top = max(longest, queue[j].length)
            grown = cost(k + 1, (k + 1) * top)
            if k and (k == self.cfg.max_batch or grown > slo
                      or grown - cost(k, k * longest) > cost(1, queue[j].length)):
                break  # full, too slow for the SLO, or dearer than running it alone
            k, longest = k + 1, top
        return k, longest

    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        slo, cost = self.cfg.slo_p99_ms, self.service.cost
        # arrived before this: late even in a batch that starts now (sized as the queue allows)
        m, longest = self._fitting(queue, range(len(queue)))
        doomed_before = now + cost(m, m * longest) - slo
        live = [k for k in range(len(queue)) if queue[k].arrival >= doomed_before]
        if len(live) < len(queue):  # late ones ride along where there is room, never ahead
            members = live + [k for k in range(len(queue)) if queue[k].arrival < doomed_before]
        else:
            members = live
        batch = self._fill(queue, members)
        fit, _ = self._fitting(queue, batch.indices)
        closed = fit < len(batch.indices) or len(batch.indices) < len(members)
        batch = Dispatch(batch.indices[:fit])
        n = len(batch.indices)
        if not live:
            return batch  # all late: waiting cannot help
        cap = n if closed else self.cfg.max_batch  # stopped at the SLO or token budget: full
        longest = max(queue[k].length for k in batch.indices)
        # one more request may join just before the start, as long as recent batches' rows
        worst = max(longest, max(self._longest, default=longest))
        slack = self.slack_ms
        oldest = queue[live[0]].arrival
        at = float(self.rule(now, oldest, n, cap, slo,
                             lambda m: cost(m + 1, (m + 1) * worst) + slack))
        if self.amortize:
            at = min(at, oldest + cost(n))  # the part of a run a bigger batch shares
        return batch if now >= at else Wait(at)

    def seal(self, queue, now):
        """Never sealed early: which requests are late depends on when the batch starts."""
        return None

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, slo_p99_ms={self.cfg.slo_p99_ms})"
