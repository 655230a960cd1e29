"""The shipped corpus is what the code generates, with the lengths it claims."""
import numpy as np
import pytest

from labsupport.encoder.corpus import CORPUS, build_corpus, load_corpus, target_lengths


def test_shipped_corpus_shape():
    rows = load_corpus()
    L = np.array([r["tokens"] for r in rows])
    assert len(rows) == 600 and L.min() >= 4 and L.max() <= 256
    assert 35 <= np.median(L) <= 70 and np.mean(L >= 200) > 0.02  # a long tail
    assert (L == target_lengths(600)).mean() > 0.99


@pytest.mark.slow
def test_corpus_regenerates_exactly():
    rows = build_corpus(600)
    assert rows == load_corpus()
    assert CORPUS.stat().st_size < 300_000
