"""The hybrid stack: a gateway micro-batcher and a continuous decoder in one RAG path."""
import asyncio

import numpy as np
import pytest

from labsupport.costs import ServiceModel, fake_model
from labsupport.serving.rag import DOCS, RagPipeline

pytestmark = pytest.mark.timeout(120)


class BagOfWords:
    """A stand-in bi-encoder: hashed bag of words, unit length (retrieval still works);
    it takes 10 ms + 1 ms per text, like a small model, so a burst has to queue."""

    def __init__(self):
        self.calls: list[int] = []
        self.tokenizer = lambda text, add_special_tokens=False: {
            "input_ids": [sum(map(ord, w)) for w in text.lower().split()]}
        self._model = fake_model(ServiceModel(10.0, 1.0), self._vectors)  # the lab's one toy model

    def embed(self, texts):
        self.calls.append(len(texts))
        return self._model(texts)

    def _vectors(self, texts):
        out = np.zeros((len(texts), 256))
        for i, t in enumerate(texts):
            for w in t.lower().replace("?", "").split():
                out[i, sum(map(ord, w)) % 256] += 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True).clip(1e-9)


@pytest.fixture(scope="module")
def rag():
    r = RagPipeline(encoder=BagOfWords(), max_batch=8, max_seqs=4, top_k=2)
    yield r
    r.close()


def test_every_question_gets_its_own_answer_from_both_batchers(rag):
    qs = [title for title, _ in DOCS] * 2
    answers = asyncio.run(rag.run(qs, rate_per_s=400, min_new=2, max_new=12, seed=3))
    assert [a.question for a in answers] == qs
    assert all(2 <= len(a.output) <= 12 for a in answers)
    assert all(all(0 <= t < rag.vocab for t in a.output) for a in answers)
    hits = sum(a.docs[0] == title for a, (title, _) in zip(answers, DOCS * 2))
    assert hits >= len(qs) * 0.5, f"retrieval found the named passage only {hits} times"
    st = rag.stats(answers)
    # a burst: the gateway must have put several questions in one encoder call ...
    assert st["gateway"]["max_batch_seen"] > 1 and st["gateway"]["batches"] < len(qs)
    assert st["gateway"]["max_batch_seen"] <= 8
    # ... and the decoder must have run several sequences in one step, never above max_seqs
    assert 1 < st["generator"]["max_rows_per_step"] <= 4
    assert st["generator"]["tokens"] == sum(len(a.output) for a in answers)
    assert all(a.ttft_ms <= a.generate_ms + 1e-6 for a in answers)


def test_a_prompt_that_can_never_fit_fails_alone(rag):
    async def go():
        too_long = asyncio.ensure_future(rag.generator.generate([1] * 600, 4))
        fine = asyncio.ensure_future(rag.generator.generate([1, 2, 3], 4))
        return await asyncio.gather(too_long, fine, return_exceptions=True)
    bad, good = asyncio.run(go())
    assert isinstance(bad, ValueError) and len(good[0]) == 4
