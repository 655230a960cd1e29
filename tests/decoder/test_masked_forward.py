"""``decoder.masked_forward``: one packed forward pass with the engine's ragged mask gives
each sequence the logits the model gives it alone; a mask that lets a token see another
sequence, or its own future, moves them; a mask of the wrong shape is refused."""
import numpy as np
import pytest
import torch

from labsupport.decoder.masked_forward import alone_logits, full_mask, packed_logits
from labsupport.decoder.ragged import packed_mask
from labsupport.decoder.runner import tiny_gpt2

SPANS = [(5, 1), (0, 4), (3, 3)]


@pytest.fixture(scope="module")
def setup():
    torch.manual_seed(0)
    model = tiny_gpt2(seed=0)
    rng = np.random.default_rng(3)
    contexts = [rng.integers(0, 1000, c + n).tolist() for c, n in SPANS]
    return model, contexts, alone_logits(model, contexts)


def test_the_engines_mask_reproduces_each_sequence_alone(setup):
    model, contexts, alone = setup
    packed = packed_logits(model, contexts, SPANS, packed_mask(SPANS))
    assert torch.allclose(packed, alone, atol=1e-4)


def test_a_mask_across_sequences_moves_the_logits(setup):
    model, contexts, alone = setup
    leaky = packed_mask(SPANS).copy()
    leaky[0, 6:] = True                     # the first sequence's token sees the others
    diff = (packed_logits(model, contexts, SPANS, leaky) - alone).abs().amax(-1)
    assert diff[0] > 1e-2 and diff[1:].max() < 1e-4


def test_a_mask_that_sees_the_future_moves_that_sequence(setup):
    model, contexts, alone = setup
    future = packed_mask(SPANS).copy()
    q0 = 1 + 4                              # the third sequence's first new token
    future[q0, 10 + 3:10 + 6] = True        # sees its own later tokens
    diff = (packed_logits(model, contexts, SPANS, future) - alone).abs().amax(-1)
    assert diff[2] > 1e-2 and diff[:2].max() < 1e-4


def test_cached_rows_are_causal_inside_their_sequence():
    m = full_mask([(2, 1), (1, 1)], packed_mask([(2, 1), (1, 1)]))
    assert m.tolist()[0] == [True, False, False, False, False]
    assert m.tolist()[1] == [True, True, False, False, False]
    assert m.tolist()[3] == [False, False, False, True, False]


def test_wrong_shape_is_refused():
    with pytest.raises(ValueError, match=r"mask must have shape \(2, 5\)"):
        full_mask([(2, 1), (1, 1)], np.ones((2, 4), bool))
