"""Padding and shape bucketing for variable-length inputs (lengths in tokens).

A batch of sequences runs as one ``[n, L]`` tensor: every row is padded to ``L`` and an
attention mask (1 = real token, 0 = padding) tells the model which positions to ignore.
The padding is computed but thrown away, so its share of all computed tokens is waste.
This module pads (to the longest, to a multiple, or to fixed bucket edges), assigns
buckets, sorts inside a bounded window, forms token-budget batches and measures waste.
Oversize inputs are handled explicitly: ``oversize="error"`` raises, ``"truncate"`` cuts
with a warning. Nothing here ever loops on an input that cannot fit.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral
from typing import Sequence

import numpy as np

from .validate import check_choice, check_int

OVERSIZE = ("error", "truncate")
# MiniLM's range in steps of at most 1.33×: ~8 % padding on the shipped corpus at batch 32
DEFAULT_EDGES = (16, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 224, 256)


class TooLong(ValueError):
    """An input is longer than the largest shape (bucket edge, budget or model limit)."""


# ---- validation --------------------------------------------------------------------------

def check_lengths(lengths, name: str = "lengths") -> list[int]:
    """A non-empty list of ints >= 1 (tokens), else ValueError naming ``name``."""
    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__len__"):
        raise ValueError(f"{name} must be a non-empty list of token counts (ints >= 1), "
                         f"got {type(lengths).__name__}")
    if len(lengths) == 0:
        raise ValueError(f"{name} must be a non-empty list of token counts (ints >= 1), "
                         "got an empty list")
    out = []
    for k, v in enumerate(lengths):
        if isinstance(v, bool) or not isinstance(v, Integral) or v < 1:
            raise ValueError(f"{name}[{k}] must be an int >= 1 (tokens), got {v!r}")
        out.append(int(v))
    return out


def check_edges(edges, name: str = "edges") -> tuple[int, ...]:
    """Bucket edges: a non-empty, strictly increasing sequence of ints >= 1 (tokens)."""
    e = check_lengths(edges, name)
    if any(b <= a for a, b in zip(e, e[1:])):
        raise ValueError(f"{name} must be strictly increasing, got {tuple(e)}")
    return tuple(e)


def _check_seqs(seqs) -> list[list[int]]:
    if isinstance(seqs, (str, bytes)) or not hasattr(seqs, "__len__") or len(seqs) == 0:
        raise ValueError("seqs must be a non-empty list of token-id lists")
    out = []
    for k, s in enumerate(seqs):
        if isinstance(s, (str, bytes)) or not hasattr(s, "__len__") or len(s) == 0:
            raise ValueError(f"seqs[{k}] must be a non-empty list of token ids, got {s!r:.60}")
        out.append([int(t) for t in s])
    return out


# ---- shapes ------------------------------------------------------------------------------

def bucket_of(length: int, edges: Sequence[int]) -> int:
    """Index of the smallest edge >= ``length``; ``len(edges)`` when it fits no bucket."""
    lo, hi = 0, len(edges)
    while lo < hi:  # bisect: first edge >= length
        mid = (lo + hi) // 2
        if edges[mid] < length:
            lo = mid + 1
        else:
            hi = mid
    return lo


def assign_buckets(lengths, edges, *, oversize: str = "error") -> np.ndarray:
    """Bucket index of every length. Lengths above the last edge raise ``TooLong``
    (``oversize="error"``) or go to the last bucket with a warning (``"truncate"``)."""
    lengths, edges = check_lengths(lengths), check_edges(edges)
    check_choice("oversize", oversize, OVERSIZE)
    out = np.array([bucket_of(n, edges) for n in lengths], dtype=int)
    over = np.flatnonzero(out == len(edges))
    if len(over):
        k = int(over[0])
        msg = (f"{len(over)} input(s) longer than the last bucket edge {edges[-1]} tokens "
               f"(first: lengths[{k}] = {lengths[k]})")
        if oversize == "error":
            raise TooLong(msg + "; raise the last edge or pass oversize='truncate'")
        warnings.warn(msg + f"; truncated to {edges[-1]}", stacklevel=2)
        out[over] = len(edges) - 1
    return out


def padded_length(lengths, *, multiple: int = 1, edges: Sequence[int] | None = None,
                  max_length: int | None = None, oversize: str = "error") -> int:
    """The row length ``L`` a batch of ``lengths`` pads to: the longest, rounded up to a
    ``multiple`` (e.g. 8 for tensor cores), or up to the smallest bucket edge that fits."""
    lengths = check_lengths(lengths)
    check_int("multiple", multiple, 1)
    check_choice("oversize", oversize, OVERSIZE)
    longest = max(lengths)
    limit = max_length if edges is None else check_edges(edges)[-1]
    if limit is not None and longest > limit:
        what = "max_length" if edges is None else "the last bucket edge"
        if oversize == "error":
            raise TooLong(f"an input has {longest} tokens, more than {what} = {limit}; "
                          "pass oversize='truncate' to cut it")
        warnings.warn(f"input of {longest} tokens truncated to {what} = {limit}", stacklevel=2)
        longest = limit
    if edges is not None:
        return int(edges[bucket_of(longest, edges)])
    L = -(-longest // multiple) * multiple
    return L if limit is None else min(L, limit)


@dataclass(frozen=True)
class Padded:
    """A padded batch: ``ids`` and ``mask`` are ``[n, L]`` int64 arrays."""
    ids: np.ndarray
    mask: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.ids.shape)

    @property
    def real_tokens(self) -> int:
        return int(self.mask.sum())

    @property
    def padded_tokens(self) -> int:
        return int(self.mask.size)


def pad(seqs, *, pad_id: int = 0, multiple: int = 1, edges: Sequence[int] | None = None,
        max_length: int | None = None, oversize: str = "error") -> Padded:
    """Right-pad token-id lists to one length (see ``padded_length``) with ``pad_id``;
    the mask marks real tokens with 1."""
    seqs = _check_seqs(seqs)
    L = padded_length([len(s) for s in seqs], multiple=multiple, edges=edges,
                      max_length=max_length, oversize=oversize)
    ids = np.full((len(seqs), L), pad_id, dtype=np.int64)
    mask = np.zeros((len(seqs), L), dtype=np.int64)
    for r, s in enumerate(seqs):
        s = s[:L]  # only reached past a limit with oversize="truncate" (warned above)
        ids[r, :len(s)] = s
        mask[r, :len(s)] = 1
    return Padded(ids, mask)


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


# ---- waste -------------------------------------------------------------------------------

def batch_padded_tokens(lengths, batches, *, edges: Sequence[int] | None = None) -> np.ndarray:
    """Padded tokens per batch: ``n × longest`` (or ``n × bucket edge`` with ``edges``)."""
    lengths = check_lengths(lengths)
    out = []
    for b in batches:
        L = max(lengths[k] for k in b)
        if edges is not None:
            L = edges[min(bucket_of(L, edges), len(edges) - 1)] if L <= edges[-1] else L
        out.append(len(b) * L)
    return np.asarray(out, dtype=np.int64)


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
    """The batches a policy (``labsupport.policies``) forms when all of ``lengths`` wait at
    once (a backlog), in dispatch order: ``work_conserving`` is FIFO, ``bucketed`` groups
    by bucket. ``knobs`` (``max_batch``, ``max_tokens``, …) build a policy given by name."""
    from .service_model import ServiceModel
    from .sim import simulate
    from .traffic import Request
    lengths = check_lengths(lengths)
    res = simulate([Request(k, 0.0, n) for k, n in enumerate(lengths)], policy,
                   ServiceModel(1.0, 0.0, 0.0), **knobs)
    order = np.lexsort((np.arange(len(lengths)), res.batch_of))
    cuts = np.flatnonzero(np.diff(res.batch_of[order])) + 1
    return [b.tolist() for b in np.split(order, cuts)]
