"""Batching policies: given the queue, the clock and whether the executor is busy, decide.

A policy answers ``Dispatch(indices)`` (run these queued requests now, as one batch) or
``Wait(until)`` (ask again at ``until`` ms, or at the next event when ``until`` is None).
The simulator (``sim``) and the asyncio runtime (``runtime``) both ask the same objects,
so what a student sees in a plot is what the real server does.

Queue items only need ``.arrival`` (ms) and ``.length`` (tokens). Policies may keep state
(a window timer); call ``reset()`` before reusing one for a new run.

The ``busy`` contract: ``busy`` is True while the executor runs a batch. A policy never
dispatches while busy; it answers ``Wait`` and is asked again when the batch completes, at
every arrival and at the time it asked for, which must lie ahead of ``now``. Both engines
ask through ``ask``, the one place that holds a policy to this (a breach raises).

The knobs have one owner: a policy holds its ``BatchConfig`` (``cfg``, whose ``policy`` is
the policy's name); engines read and reconfigure that same object, and ``registry``'s
``make_policy`` binds a ``Policy`` given together with knobs to them, or raises when they
disagree. The simple policies live here; ``registry`` lists every policy by name.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from typing import Protocol, Sequence

from .config import DELAY_MEANING, BatchConfig
from .shapes import padded_tokens


class Queued(Protocol):
    arrival: float
    length: int


@dataclass(frozen=True, slots=True)
class Dispatch:
    indices: tuple[int, ...]  # positions in the queue, in batch order


@dataclass(frozen=True, slots=True)
class Wait:
    until: float | None = None  # ms; None: until the next arrival or completion


WAIT = Wait(None)


class Policy:
    """Base class: subclasses implement ``decide``. ``cfg`` holds the knobs."""
    name = "base"

    def __init__(self, cfg: BatchConfig | None = None, **knobs):
        cfg = BatchConfig(**knobs) if cfg is None else replace(cfg, **knobs) if knobs else cfg
        if self.name in DELAY_MEANING and cfg.policy != self.name:
            cfg = replace(cfg, policy=self.name)  # the config names the policy it runs
        self.cfg = cfg
        self.reset()

    def reset(self) -> None:
        """Forget any timer state (start of a new run)."""

    def decide(self, queue: Sequence[Queued], now: float, busy: bool) -> Dispatch | Wait:
        raise NotImplementedError

    def seal(self, queue: Sequence[Queued], now: float) -> Dispatch | None:
        """Asked while the executor is busy: the next batch, if it is already decided (no
        arrival before the executor frees could change it), so an engine can hand it to
        the executor ahead of time; else None. Default: never sealed early."""
        return None

    def closed(self, queue: Sequence[Queued], batch: Dispatch) -> bool:
        """True when ``batch`` (a head of ``queue``) cannot grow: it holds ``max_batch``
        requests or stopped at the token budget before the end of the queue."""
        n = len(batch.indices)
        return n >= self.cfg.max_batch or n < len(queue)

    def sealed_head(self, queue: Sequence[Queued]) -> Dispatch | None:
        """``head(queue)`` when it is closed (see ``closed``), else None; cheap when the
        queue is too short to fill a batch and there is no token budget."""
        if not queue or (len(queue) < self.cfg.max_batch and self.cfg.max_tokens is None):
            return None
        batch = self.head(queue)
        return batch if self.closed(queue, batch) else None

    def observe(self, size: int, padded_tokens: int, ms: float) -> None:
        """An executed batch (``size`` requests, ``padded_tokens``, ``ms`` service time);
        policies that learn the service time use it, the others ignore it."""

    def padded_tokens(self, batch: Sequence[Queued]) -> int:
        """Tokens a batch computes when rows pad to its longest: n × longest."""
        return padded_tokens([item.length for item in batch])

    def head(self, queue: Sequence[Queued]) -> Dispatch:
        """The oldest requests, up to ``max_batch`` and the padded-token budget (what a
        draining engine sends without asking ``decide``)."""
        return self._fill(queue, range(len(queue)))

    def _fill(self, queue: Sequence[Queued], members, floor: int = 0) -> Dispatch:
        """``members`` (queue positions) in order, while the batch stays within
        ``max_batch`` and ``max_tokens`` (rows padded to at least ``floor`` tokens). A lone
        request above the budget still goes, alone, rather than wait forever."""
        budget, cap = self.cfg.token_budget, self.cfg.max_batch
        take, longest = [], floor
        for k in members:
            top = max(longest, queue[k].length)
            if take and (len(take) == cap or top * (len(take) + 1) > budget):
                break
            take.append(k)
            longest = top
        return Dispatch(tuple(take))

    def __repr__(self) -> str:
        c = self.cfg
        return f"{type(self).__name__}(max_batch={c.max_batch}, max_delay_ms={c.max_delay_ms})"


class Naive(Policy):
    """One request at a time, as soon as the executor is free: no batching at all."""
    name = "naive"

    def decide(self, queue, now, busy):
        return WAIT if busy or not queue else Dispatch((0,))


class Window(Policy):
    """The lesson's sample: a timer starts when a request lands in an empty queue; when it
    fires, up to ``max_batch`` go; leftovers start a new timer. It always waits the full
    window, even when alone or when a full batch is already waiting."""
    name = "window"

    def reset(self):
        self._deadline: float | None = None

    def decide(self, queue, now, busy):
        if not queue:
            self._deadline = None
            return WAIT
        if self._deadline is None:
            self._deadline = queue[0].arrival + self.cfg.max_delay_ms
        if now < self._deadline:
            return Wait(self._deadline)
        if busy:
            return WAIT
        batch = self.head(queue)
        left = len(queue) > len(batch.indices)
        self._deadline = now + self.cfg.max_delay_ms if left else None
        return batch


class Early(Policy):
    """The window fixed twice: a full batch (``max_batch`` waiting) goes at once, and the
    wait is measured from the oldest waiting request's arrival, so no request waits more
    than ``max_delay_ms`` for the window (leftovers get no fresh window)."""
    name = "early"

    def decide(self, queue, now, busy):
        if busy or not queue:
            return WAIT
        due = queue[0].arrival + self.cfg.max_delay_ms
        if len(queue) >= self.cfg.max_batch or now >= due:
            return self.head(queue)
        return Wait(due)

    def seal(self, queue, now):
        return self.head(queue) if len(queue) >= self.cfg.max_batch else None


class WorkConserving(Policy):
    """Never idle with work waiting: an idle executor takes the oldest requests now; while
    it is busy the batch keeps growing (up to ``max_batch``). With one executor the wait is
    bounded by the running batch, so ``max_delay_ms`` never needs to be spent on purpose."""
    name = "work_conserving"

    def decide(self, queue, now, busy):
        return WAIT if busy or not queue else self.head(queue)

    def seal(self, queue, now):
        return self.sealed_head(queue)


def ask(policy: Policy, queue: Sequence[Queued], now: float, busy: bool) -> Dispatch | Wait:
    """``policy.decide(queue, now, busy)``, held to the contract both engines rely on: no
    ``Dispatch`` while ``busy`` (the executor runs one batch at a time) and no ``Wait`` until
    a time at or before ``now`` (an engine would spin on it). A breach is a policy bug:
    ``RuntimeError`` naming the policy, never a silent fix."""
    d = policy.decide(queue, now, busy)
    if isinstance(d, Dispatch):
        if busy:
            raise RuntimeError(f"{policy!r} dispatched while the executor was busy")
    elif d.until is not None and not d.until > now:
        raise RuntimeError(f"{policy!r} asked to wait until {d.until} ms at {now} ms, "
                           "which is not ahead: answer Dispatch, or a time to come")
    return d


def take(queue: deque, d: Dispatch, policy: Policy | None = None) -> list:
    """Remove the dispatched requests from ``queue`` (in place) and return them in batch
    order. Indices must be distinct positions in the queue, else ``RuntimeError`` naming
    the policy (a policy bug must not lose or duplicate requests)."""
    idx = d.indices
    if not idx or len(set(idx)) != len(idx) or min(idx) < 0 or max(idx) >= len(queue):
        raise RuntimeError(f"{policy!r} returned bad indices {idx!r} for a queue of "
                           f"{len(queue)}")
    if idx == tuple(range(len(idx))):
        return [queue.popleft() for _ in idx]
    batch = [queue[k] for k in idx]
    chosen = set(idx)
    rest = [q for k, q in enumerate(queue) if k not in chosen]
    queue.clear()
    queue.extend(rest)
    return batch
