"""Padding, buckets, token budgets and waste (labsupport.batching.shapes and .plans): fast, no model."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from labsupport.encoder.corpus import load_corpus
from labsupport.batching.plans import (backlog_batches, bucketed_batches, fifo_batches,
                                       sorted_batches, token_budget_batches, waste,
                                       window_order)
from labsupport.batching.shapes import (DEFAULT_EDGES, TooLong, assign_buckets, bucket_of, pad,
                                        padded_length)

EDGES = (8, 16, 32)


def test_pad_to_longest_with_mask():
    p = pad([[5, 6, 7], [8], [9, 10]], pad_id=0)
    assert p.ids.tolist() == [[5, 6, 7], [8, 0, 0], [9, 10, 0]]
    assert p.mask.tolist() == [[1, 1, 1], [1, 0, 0], [1, 1, 0]]
    assert (p.real_tokens, p.padded_tokens) == (6, 9)


@pytest.mark.parametrize("kw,L", [({"multiple": 8}, 8), ({"multiple": 3}, 6),
                                  ({"edges": EDGES}, 8), ({"edges": (4, 5, 9)}, 5)])
def test_pad_to_multiple_and_edges(kw, L):
    p = pad([[1] * 5, [2] * 2], pad_id=-1, **kw)
    assert p.shape == (2, L)
    assert p.mask.sum(1).tolist() == [5, 2]
    assert (p.ids[p.mask == 0] == -1).all()


def test_bucket_edges_are_inclusive():
    assert [bucket_of(n, EDGES) for n in (1, 8, 9, 16, 17, 32, 33)] == [0, 0, 1, 1, 2, 2, 3]
    assert assign_buckets([8, 9, 32], EDGES).tolist() == [0, 1, 2]


def test_oversize_rejects_or_truncates_with_warning():
    with pytest.raises(TooLong, match="max_length = 4"):
        pad([[1] * 6], max_length=4)
    with pytest.raises(TooLong, match="last bucket edge 32"):
        assign_buckets([40], EDGES)
    with pytest.warns(UserWarning, match="truncated"):
        p = pad([[1] * 6, [2]], max_length=4, oversize="truncate")
    assert p.shape == (2, 4) and p.mask[0].sum() == 4
    with pytest.warns(UserWarning):
        assert assign_buckets([40, 3], EDGES, oversize="truncate").tolist() == [2, 0]


@pytest.mark.parametrize("call,name", [
    (lambda: fifo_batches([], 4), "lengths"),
    (lambda: fifo_batches([3, "4"], 4), r"lengths\[1\]"),
    (lambda: fifo_batches([3, 2.5], 4), r"lengths\[1\]"),
    (lambda: fifo_batches([3, 0], 4), r"lengths\[1\]"),
    (lambda: fifo_batches([3], 0), "max_batch"),
    (lambda: token_budget_batches([3, 4], 0), "max_tokens"),
    (lambda: token_budget_batches([3, 4], 10, oversize="drop"), "oversize"),
    (lambda: assign_buckets([3], (16, 8)), "edges"),
    (lambda: assign_buckets([3], []), "edges"),
    (lambda: pad([]), "seqs"),
    (lambda: pad([[1], []]), r"seqs\[1\]"),
    (lambda: pad([[1]], multiple=0), "multiple"),
    (lambda: window_order([1, 2], 0), "window"),
])
def test_bad_inputs_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 60), min_size=1, max_size=80), st.integers(1, 200),
       st.none() | st.integers(1, 9))
def test_token_budget_batches_properties(lengths, budget, max_batch):
    oversize = any(n > budget for n in lengths)
    if oversize:
        with pytest.raises(TooLong, match="max_tokens"):
            token_budget_batches(lengths, budget, max_batch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            batches = token_budget_batches(lengths, budget, max_batch, oversize="truncate")
    else:
        batches = token_budget_batches(lengths, budget, max_batch)
    assert [k for b in batches for k in b] == list(range(len(lengths)))  # all, once, in order
    for b in batches:
        assert max_batch is None or len(b) <= max_batch
        assert len(b) * max(min(lengths[k], budget) for k in b) <= budget
    # greedy: the next batch's first item would not have fitted the previous batch
    for prev, nxt in zip(batches, batches[1:]):
        top = max(min(lengths[k], budget) for k in prev + [nxt[0]])
        assert (len(prev) + 1) * top > budget or len(prev) == max_batch


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 300), min_size=1, max_size=100), st.integers(1, 12))
def test_window_order_moves_items_less_than_a_window(lengths, window):
    order = window_order(lengths, window)
    assert sorted(order) == list(range(len(lengths)))
    assert all(abs(pos - k) < window for pos, k in enumerate(order))


def test_waste_on_the_shipped_corpus():
    """The shipped lengths make the lesson's point: FIFO pads heavily, buckets do not."""
    lengths = [r["tokens"] for r in load_corpus(n=256)]
    fifo = waste(lengths, fifo_batches(lengths, 32))["share"]
    srt = waste(lengths, sorted_batches(lengths, 32))["share"]
    buck = waste(lengths, bucketed_batches(lengths, 32, DEFAULT_EDGES))["share"]
    pol = waste(lengths, backlog_batches(lengths, "bucketed", max_batch=32))["share"]
    assert fifo >= 0.40 and buck <= 0.10 and pol <= 0.10 and buck < srt < fifo


def test_waste_counts_and_rejects_incomplete_batchings():
    w = waste([2, 4, 4], [[0, 1], [2]])
    assert (w["padded_tokens"], w["real_tokens"]) == (12, 10)
    assert w["share"] == pytest.approx(1 - 10 / 12) and w["ratio"] == pytest.approx(1.2)
    assert waste([2, 4], [[0, 1]], edges=(8,))["padded_tokens"] == 16
    with pytest.raises(ValueError, match="exactly once"):
        waste([2, 4, 4], [[0, 1]])


def test_padded_length_rules():
    assert padded_length([3, 7]) == 7
    assert padded_length([3, 7], multiple=8) == 8
    assert padded_length([3, 9], edges=(8, 16)) == 16
    assert padded_length([250], multiple=8, max_length=252) == 252
