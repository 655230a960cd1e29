"""Offline batch plans: which requests share a batch when a whole backlog is waiting
(indices into ``lengths``, tokens), and how much of the computed tokens is padding.

FIFO chunks, sorting inside a bounded window, bucket grouping, token budgets, or any
policy's own choice (``backlog_batches`` drains the backlog through the policy itself, so
the plan is exactly what the batcher would send)."""
from __future__ import annotations

import warnings
from collections import deque
from typing import Sequence

import numpy as np

from ..traffic import Request
from ..validate import check_choice, check_int
from .policies import Dispatch, ask, take
from .registry import make_policy
from .shapes import OVERSIZE, TooLong, assign_buckets, check_lengths, padded_tokens


# ---- batch formation ---------------------------------------------------------------------

def fifo_batches(lengths, max_batch: int) -> list[list[int]]:
    """Arrival order, ``max_batch`` at a time (indices into ``lengths``)."""
    n = len(check_lengths(lengths))
    check_int("max_batch", max_batch, 1)
    return [list(range(i, min(i + max_batch, n))) for i in range(0, n, max_batch)]


def window_order(lengths, window: int) -> list[int]:
    """Indices sorted by length inside consecutive windows of ``window`` items: a request
    moves at most ``window - 1`` places, so no request is postponed forever."""
    lengths = check_lengths(lengths)
    check_int("window", window, 1)
    out: list[int] = []
    for i in range(0, len(lengths), window):
        out += sorted(range(i, min(i + window, len(lengths))), key=lambda k: lengths[k])
    return out


def sorted_batches(lengths, max_batch: int, window: int | None = None) -> list[list[int]]:
    """Sort inside a window (default ``8 × max_batch``, as infinity does), then chunk."""
    check_int("max_batch", max_batch, 1)
    order = window_order(lengths, window or 8 * max_batch)
    return [order[i:i + max_batch] for i in range(0, len(order), max_batch)]


def bucketed_batches(lengths, max_batch: int, edges, *, oversize: str = "error"
                     ) -> list[list[int]]:
    """Group by bucket (arrival order inside each), then chunk each bucket by ``max_batch``."""
    check_int("max_batch", max_batch, 1)
    b = assign_buckets(lengths, edges, oversize=oversize)
    out = []
    for k in range(len(edges)):
        idx = np.flatnonzero(b == k).tolist()
        out += [idx[i:i + max_batch] for i in range(0, len(idx), max_batch)]
    return out


def token_budget_batches(lengths, max_tokens: int, max_batch: int | None = None, *,
                         oversize: str = "error") -> list[list[int]]:
    """Consecutive batches whose padded size ``n × longest`` stays <= ``max_tokens`` (and at
    most ``max_batch`` rows; None: up to 4096, ``BatchConfig``'s cap).

    An input longer than ``max_tokens`` cannot fit any batch: ``oversize="error"`` raises
    ``TooLong``; ``"truncate"`` warns and sends it alone (to be cut to ``max_tokens``)."""
    lengths = check_lengths(lengths)
    check_int("max_tokens", max_tokens, 1)
    cap = 4096 if max_batch is None else check_int("max_batch", max_batch, 1, 4096)
    check_choice("oversize", oversize, OVERSIZE)
    cut = []
    for k, n in enumerate(lengths):
        if n > max_tokens:
            if oversize == "error":
                raise TooLong(f"lengths[{k}] = {n} tokens exceeds max_tokens = {max_tokens}; "
                              "raise max_tokens or pass oversize='truncate'")
            warnings.warn(f"lengths[{k}] = {n} tokens truncated to max_tokens = {max_tokens}",
                          stacklevel=2)
        cut.append(min(n, max_tokens))
    # the budget rule itself belongs to the policies: ask the FIFO one with the backlog
    return backlog_batches(cut, "work_conserving", max_tokens=max_tokens, max_batch=cap)


def batch_padded_tokens(lengths, batches, *, edges: Sequence[int] | None = None) -> np.ndarray:
    """Padded tokens per batch: ``n × longest`` (or ``n × bucket edge`` with ``edges``)."""
    lengths = check_lengths(lengths)
    return np.asarray([padded_tokens([lengths[k] for k in b], edges) for b in batches],
                      dtype=np.int64)


def waste(lengths, batches, *, edges: Sequence[int] | None = None) -> dict[str, float]:
    """Padding metrics of a batching: real and padded tokens, ``ratio`` = padded / real and
    ``share`` = the part of computed tokens that is padding (1 − real / padded)."""
    lengths = check_lengths(lengths)
    seen = sorted(k for b in batches for k in b)
    if seen != list(range(len(lengths))):
        raise ValueError("batches must hold every index of lengths exactly once")
    padded = int(batch_padded_tokens(lengths, batches, edges=edges).sum())
    real = int(sum(lengths))
    return {"batches": len(batches), "real_tokens": real, "padded_tokens": padded,
            "ratio": padded / real, "share": 1.0 - real / padded}


def backlog_batches(lengths, policy="work_conserving", **knobs) -> list[list[int]]:
    """The batches a policy (``labsupport.batching.policies``) forms when all of
    ``lengths`` wait at once, in dispatch order: ``work_conserving`` is FIFO, ``bucketed``
    groups by bucket. ``knobs`` (``max_batch``, ``max_tokens``, …) build a policy given by
    name. The policy is asked through ``ask``, as the simulator and the runtime ask it, with an
    idle executor; a ``Wait`` moves the clock to its deadline (no simulator, no service time)."""
    lengths = check_lengths(lengths)
    pol = make_policy(policy, **knobs)
    pol.reset()
    queue = deque(Request(k, 0.0, n) for k, n in enumerate(lengths))
    now, out = 0.0, []
    while queue:
        d = ask(pol, queue, now, False)  # the engines' contract: a Wait lies ahead
        if isinstance(d, Dispatch):
            out.append([r.id for r in take(queue, d, pol)])
        elif d.until is None:
            raise RuntimeError(f"{pol!r} waits with an idle executor and nothing to wait for")
        else:
            now = d.until
    return out
