"""The lab's one discrete-event simulation: batchers on a virtual clock (ms).

Arrivals × policy × service-time model → what happened to every request and batch. One
event loop (``_run``) drives one executor (``simulate``) or several replicas behind a
router (``simulate_replicas``). At every arrival, completion and time a policy asked to be
woken at, each executor's policy is asked through ``batching.policies.ask`` (the rule the
asyncio runtime follows too: no dispatch while busy, no wait in the past); while a batch
runs, a batch the policy seals (``Policy.seal``) starts the moment the executor frees, as
in the runtime; every executed batch is reported to ``Policy.observe`` (``adaptive``
refits from it). A router gives each arriving request to the replica its picker chooses
(``batching.routing``: the live router's own code), from the requests each one holds.
"""
from __future__ import annotations

import math
from collections import deque
from typing import Callable, Sequence

from ..batching.policies import Dispatch, Policy, ask, take
from ..batching.registry import make_policy
from ..batching.routing import make_picker
from ..costs import ServiceModel
from ..traffic import ClosedLoop, Request
from ..validate import check_int
from .records import Records, SimResult
from .sources import source_of

INF = math.inf


class _Executor:
    """One replica: its queue, its policy, the batch it runs and the one sealed to run next."""
    __slots__ = ("index", "policy", "queue", "running", "sealed", "busy_until", "wake")

    def __init__(self, index: int, policy: Policy):
        self.index, self.policy = index, policy
        self.queue: deque[Request] = deque()
        self.running: list[Request] = []
        self.sealed: list[Request] = []
        self.busy_until = self.wake = INF

    @property
    def outstanding(self) -> int:
        """Requests this replica holds: queued, sealed and running."""
        return len(self.queue) + len(self.sealed) + len(self.running)


def _run(traffic, policies: list[Policy], service: ServiceModel,
         route: Callable[[list[int]], int] | None = None) -> SimResult:
    """The event loop: the clock jumps from event to event (an arrival, a batch's
    completion, a policy's wake-up time) until no event is left."""
    source = source_of(traffic)
    rec = Records(source.total)
    execs = [_Executor(k, p) for k, p in enumerate(policies)]
    for e in execs:
        e.policy.reset()

    def start(e: _Executor, batch: list[Request], t: float) -> None:
        padded = e.policy.padded_tokens(batch)
        ms = service.cost(len(batch), padded)
        rec.batch([source.slot[r.id] for r in batch], batch, t, t + ms, padded, e.index)
        e.policy.observe(len(batch), padded, ms)
        e.running, e.busy_until = batch, t + ms

    def step(e: _Executor, t: float) -> None:
        e.wake = INF
        if not e.queue:
            return
        d = ask(e.policy, e.queue, t, e.busy_until < INF)
        if isinstance(d, Dispatch):
            start(e, take(e.queue, d, e.policy), t)
            d = ask(e.policy, e.queue, t, True) if e.queue else None
        if e.queue and not e.sealed and e.busy_until < INF:
            s = e.policy.seal(e.queue, t)
            e.sealed = take(e.queue, s, e.policy) if s is not None else []
        if d is not None and d.until is not None:
            e.wake = d.until

    while True:
        t = source.next_arrival()
        for e in execs:  # the next event: an arrival, a completion or a wake-up
            t = min(t, e.busy_until, e.wake)
        if t == INF:
            break
        # each executor is asked at its own events only (with one, every event is its own)
        touched = {e.index for e in execs if e.busy_until <= t or e.wake <= t} if route else None
        for e in execs:
            if e.busy_until <= t:
                source.completed(e.running, t)
                e.running, e.busy_until = [], INF
                if e.sealed:
                    batch, e.sealed = e.sealed, []
                    start(e, batch, t)
        for r in source.arrivals(t):
            k = route([e.outstanding for e in execs]) if route else 0
            execs[k].queue.append(r)
            if route:
                touched.add(k)
        for e in execs if route is None else [execs[k] for k in sorted(touched)]:
            step(e, t)
    return rec.result(source.order(), getattr(policies[0], "name", str(policies[0])))


def simulate(traffic: Sequence[Request] | ClosedLoop, policy: Policy | str | None = None,
             service: ServiceModel | None = None, **knobs) -> SimResult:
    """Run ``traffic`` (open-loop requests or a ``ClosedLoop``) through ``policy`` on one
    executor that runs one batch at a time for ``service.cost(n, padded tokens)`` ms.

    ``knobs`` (``cfg``, a ``BatchConfig``, and/or ``max_batch``, ``max_delay_ms``, …) build
    the policy when it is given by name (default: ``cfg.policy``), and must agree with it
    when it is an object (see ``make_policy``)."""
    return _run(traffic, [make_policy(policy, **knobs)], service or ServiceModel())


def simulate_replicas(traffic: Sequence[Request] | ClosedLoop, replicas: int,
                      routing: str = "least_outstanding", policy: str | None = None,
                      service: ServiceModel | None = None, seed: int = 0, **knobs) -> SimResult:
    """Run ``traffic`` through ``replicas`` batchers behind ``routing`` (one of
    ``batching.routing.ROUTINGS``; ``seed`` for ``p2c``'s draws). Each replica has its own
    queue and its own ``policy`` built from ``knobs`` (as for ``simulate``);
    ``SimResult.replica`` says which one served each request. With one replica this is
    ``simulate``."""
    n = check_int("replicas", replicas, 1, 1024)
    if isinstance(policy, Policy) and n > 1:
        raise ValueError("policy must be a name with several replicas (each builds its own)")
    picker = make_picker(routing, n, seed)
    return _run(traffic, [make_policy(policy, **knobs) for _ in range(n)],
                service or ServiceModel(), picker.pick if n > 1 else None)
