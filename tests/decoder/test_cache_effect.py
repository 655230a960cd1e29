"""Decode with and without the KV cache: the same tokens, and only the uncached step grows
with the position (no timing threshold: the step counts and tokens are what is asserted)."""
import pytest

torch = pytest.importorskip("torch")

from labsupport.decoder.cache_effect import decode_steps  # noqa: E402
from labsupport.decoder.runner import tiny_gpt2  # noqa: E402


def test_with_and_without_the_cache_give_the_same_tokens():
    model = tiny_gpt2(1)
    a = decode_steps(model, [5, 6, 7], 12, use_cache=True)
    b = decode_steps(model, [5, 6, 7], 12, use_cache=False)
    assert a["tokens"] == b["tokens"] and len(a["tokens"]) == 12
    assert a["positions"] == list(range(3, 14)) == b["positions"]
    assert len(a["ms"]) == 11 and all(ms >= 0 for ms in a["ms"] + b["ms"])


def test_bad_lengths_are_named():
    model = tiny_gpt2(1, n_positions=16)
    with pytest.raises(ValueError, match="n_positions=16"):
        decode_steps(model, [1] * 10, 10, use_cache=True)
    with pytest.raises(ValueError, match="new_tokens"):
        decode_steps(model, [1], 1, use_cache=True)
