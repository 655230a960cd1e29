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

from ..validate import check_choice, check_int

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


def padded_tokens(lengths: Sequence[int], edges: Sequence[int] | None = None) -> int:
    """Tokens one batch computes (the single rule every engine charges): rows pad to the
    longest, ``n × longest``; with ``edges`` (static shapes) up to the smallest edge that
    holds the longest (a batch past the last edge pads only to its longest)."""
    longest = max(lengths)
    if edges is not None and longest <= edges[-1]:
        longest = edges[bucket_of(longest, edges)]
    return len(lengths) * longest


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
