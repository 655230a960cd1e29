"""Checks for notebook 03 (padding and bucketing). The references are ``labsupport.batching.shapes`` and ``.plans``;
student functions run under a step limit, so an implementation that loops forever on an
input it cannot place fails with a message instead of hanging the grader.
"""
from __future__ import annotations

import math

import numpy as np

from ..batching import plans, shapes
from .guard import bounded, case_rng, exercise_check, require_callable as _callable
from .plain import describe, plain, plain_number


def _seqs(rng, n, lo=1, hi=12):
    return [rng.integers(100, 999, int(rng.integers(lo, hi + 1))).tolist() for _ in range(n)]


# ---- ex03_1: pad a batch with its mask ---------------------------------------------------

@exercise_check("ex03_1")
def check_ex03_1(obj, hidden: bool = False) -> None:
    """``obj(seqs, pad_id=0) -> (ids, mask)``: right-padded to the longest, mask 1 = real."""
    ex = "ex03_1"
    _callable(ex, obj, "pad_batch")
    rng = case_rng(ex, hidden)
    cases = [([[7, 8, 9], [5], [6, 6]], 0), ([[3]], 0)] if not hidden else \
        [(_seqs(rng, int(rng.integers(2, 10))), int(rng.integers(-2, 200))),
         (_seqs(rng, int(rng.integers(2, 5)), 4, 4), 0),  # all of one length: nothing to pad
         (_seqs(rng, int(rng.integers(5, 12)), 1, 20), int(rng.integers(100, 999)))]
    for seqs, pad_id in cases:
        got = plain(ex, bounded(ex, obj, [list(s) for s in seqs], pad_id=pad_id))
        if not (type(got) is tuple and len(got) == 2):
            raise AssertionError(f"{ex}: return a pair (ids, mask), got {describe(got)}")
        try:
            ids, mask = (np.asarray(x) for x in got)
        except ValueError:
            raise AssertionError(f"{ex}: ids and mask must be rectangular arrays") from None
        want = shapes.pad(seqs, pad_id=pad_id)
        if ids.shape != want.shape or mask.shape != want.shape:
            raise AssertionError(f"{ex}: for {len(seqs)} sequences of lengths "
                                 f"{[len(s) for s in seqs]} ids and mask must both have shape "
                                 f"{want.shape} (rows × the longest length); got ids "
                                 f"{ids.shape}, mask {mask.shape}")
        if not np.array_equal(mask, want.mask):
            raise AssertionError(f"{ex}: the mask is wrong: it must be 1 on every real token "
                                 "and 0 on every padding position (row r has len(seqs[r]) "
                                 "ones, at the start)")
        if not np.array_equal(ids, want.ids):
            where = "padding positions must hold pad_id" \
                if np.array_equal(ids[want.mask == 1], want.ids[want.mask == 1]) \
                else "each row must start with its own tokens, in order (pad on the right)"
            raise AssertionError(f"{ex}: ids are wrong with pad_id={pad_id}: {where}")
    try:
        bounded(ex, obj, [])
    except ValueError:
        pass
    except AssertionError:
        raise
    except Exception as e:
        raise AssertionError(f"{ex}: an empty batch should raise ValueError, got "
                             f"{type(e).__name__}") from None
    else:
        raise AssertionError(f"{ex}: an empty batch has no shape: raise ValueError")


# ---- ex03_2: bucket assignment -----------------------------------------------------------

def _edges(rng) -> tuple[int, ...]:
    """Increasing bucket edges with a narrow bucket (width 1) somewhere in them."""
    edges = set(int(e) for e in rng.integers(2, 300, int(rng.integers(3, 7))))
    narrow = int(rng.integers(3, 300))
    return tuple(sorted(edges | {narrow, narrow + 1}))


@exercise_check("ex03_2")
def check_ex03_2(obj, hidden: bool = False) -> None:
    """``obj(length, edges) -> int``: index of the smallest edge >= length; ValueError above
    the last edge."""
    ex = "ex03_2"
    _callable(ex, obj, "bucket_index")
    edges = (16, 32, 64, 128) if not hidden else _edges(case_rng(ex, True))
    probes = sorted({1, *edges, *(e + 1 for e in edges[:-1]), *(e - 1 for e in edges)} - {0})
    for n in probes:
        got = plain(ex, bounded(ex, obj, n, edges))
        want = shapes.bucket_of(n, edges)
        if type(got) is not int or got != want:
            at = "exactly on an edge" if n in edges else "just above an edge" \
                if n - 1 in edges else "inside a bucket"
            raise AssertionError(
                f"{ex}: bucket_index({n}, {edges}) returned {describe(got)}, which is wrong for a "
                f"length {at}. A bucket holds lengths up to and including its edge")
    over = edges[-1] + (1 if not hidden else int(case_rng(ex, True).integers(1, 100)))
    try:
        got = plain(ex, bounded(ex, obj, over, edges))
    except ValueError:
        return
    except AssertionError:
        raise
    except Exception as e:
        raise AssertionError(f"{ex}: a length above the last edge should raise ValueError, "
                             f"got {type(e).__name__}") from None
    raise AssertionError(f"{ex}: bucket_index({over}, {edges}) returned {describe(got)}; a length "
                         "above the last edge fits no bucket: raise ValueError (silently "
                         "using the last bucket would truncate the input)")


# ---- ex03_3: token-budget batches --------------------------------------------------------

def _batches(ex, got, n):
    if type(got) not in (list, tuple) or not all(type(b) in (list, tuple) for b in got) or \
            not all(type(k) is int for b in got for k in b):
        raise AssertionError(f"{ex}: return a list of batches, each a list of indices")
    flat = [int(k) for b in got for k in b]
    if any(len(b) == 0 for b in got):
        raise AssertionError(f"{ex}: a batch must not be empty")
    if flat != list(range(n)):
        raise AssertionError(f"{ex}: every index must appear exactly once, in arrival order "
                             f"(consecutive batches); got {len(flat)} indices for {n} inputs")
    return [[int(k) for k in b] for b in got]


@exercise_check("ex03_3")
def check_ex03_3(obj, hidden: bool = False) -> None:
    """``obj(lengths, max_tokens) -> [[i, …], …]``: consecutive greedy batches with
    ``len(batch) × longest <= max_tokens``; ValueError for an input over the budget."""
    ex = "ex03_3"
    _callable(ex, obj, "budget_batches")
    rng = case_rng(ex, hidden)
    if not hidden:
        cases = [([5, 3, 8, 2, 2, 9], 16), ([4, 4, 4, 4], 8), ([7], 7)]
    else:
        top = int(rng.integers(20, 60))
        exact = int(rng.integers(5, 15))  # an input exactly at the budget, ones around it
        cases = [(rng.integers(1, top, int(rng.integers(30, 60))).tolist(),
                  int(rng.integers(top, 4 * top))),
                 (rng.integers(1, 9, int(rng.integers(20, 40))).tolist(),
                  int(rng.integers(8, 12))),
                 ([exact] + [1] * int(rng.integers(3, 12)) + [exact], exact)]
    for lengths, budget in cases:
        got = _batches(ex, plain(ex, bounded(ex, obj, list(lengths), budget)), len(lengths))
        for b in got:
            padded = shapes.padded_tokens([lengths[k] for k in b])
            if padded > budget:
                raise AssertionError(
                    f"{ex}: batch {b} costs {padded} padded tokens (size × its longest), over "
                    f"max_tokens={budget}. Count padded tokens, not real ones")
        want = plans.token_budget_batches(lengths, budget)
        if len(got) != len(want):
            raise AssertionError(f"{ex}: with max_tokens={budget} you formed {len(got)} batches "
                                 f"where greedy filling needs {len(want)}: add each input to "
                                 "the current batch while the padded size stays within budget")
    if not hidden:
        lengths, budget = [3, 2, 30, 1], 20
    else:
        budget = int(rng.integers(20, 200))
        lengths = [1] * int(rng.integers(1, 8)) + [budget + int(rng.integers(1, 100))] + \
            [1] * int(rng.integers(1, 8))
    try:
        got = plain(ex, bounded(ex, obj, lengths, budget))
    except ValueError:
        return
    except AssertionError:
        raise
    except Exception as e:
        raise AssertionError(f"{ex}: an input longer than max_tokens should raise ValueError, "
                             f"got {type(e).__name__}: {e}") from None
    raise AssertionError(f"{ex}: lengths {lengths} with max_tokens={budget}: one input can "
                         "never fit the budget; raise ValueError naming it instead of "
                         f"returning {got!r:.80}")


# ---- ex03_4: padding waste ---------------------------------------------------------------

@exercise_check("ex03_4")
def check_ex03_4(obj, hidden: bool = False) -> None:
    """``obj(lengths, batches) -> float``: padding share of computed tokens, 1 − real/padded."""
    ex = "ex03_4"
    _callable(ex, obj, "padding_share")
    cases = [([4, 4, 4], [[0, 1, 2]]), ([2, 8, 3, 3], [[0, 1], [2, 3]]),
             ([1, 5, 2], [[0, 2], [1]])]
    if hidden:
        rng = case_rng(ex, True)
        L = rng.integers(1, 100, int(rng.integers(20, 80))).tolist()
        mb = int(rng.integers(2, 12))
        one = [int(rng.integers(5, 50))] + [1] * int(rng.integers(2, 6))  # one long, many short
        cases = [(L, plans.fifo_batches(L, mb)), (L, plans.sorted_batches(L, mb, 64)),
                 (one, [list(range(len(one)))])]
    for lengths, batches in cases:
        val = plain_number(ex, bounded(ex, obj, list(lengths), [list(b) for b in batches]),
                           "your share")
        want = plans.waste(lengths, batches)["share"]
        if not math.isclose(val, want, abs_tol=1e-9):
            hint = ("padding share is between 0 and 1: padding / padded, i.e. 1 − real/padded"
                    if not 0 <= val <= 1 else
                    "each batch computes size × its LONGEST length; the share is the part of "
                    "all computed tokens that is padding")
            raise AssertionError(f"{ex}: for lengths {lengths if len(lengths) < 10 else '…'} "
                                 f"your share is {val:.4f}, which is off: {hint}")


def lab_pad_batch(seqs, pad_id=0):
    """The lab's answer to ex03_1 (for demo cells): (ids, mask) right-padded to the longest,
    both [n, L] (``shapes.pad``)."""
    b = shapes.pad(seqs, pad_id=pad_id)
    return b.ids, b.mask


__all__ = ["check_ex03_1", "check_ex03_2", "check_ex03_3", "check_ex03_4"]
