"""The hybrid stack: a gateway micro-batcher and a continuous decoder in one RAG path."""
import asyncio

import numpy as np
import pytest

from labsupport.batching.config import BatchConfig
from labsupport.costs import ServiceModel, fake_model
from labsupport.serving.demo.rag import DOCS, RagPipeline

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
    r = RagPipeline(encoder=BagOfWords(), batch=BatchConfig(max_batch=8), max_seqs=4, top_k=2)
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


def test_prefix_caching_reuses_the_system_prompt_and_both_ttfts_are_reported():
    """Every prompt starts with the same system prompt: with prefix caching its full blocks
    are computed once (fewer prefill tokens fed), the answers stay token-identical, and the
    stats give the end-to-end TTFT beside the generator-only one."""
    qs = [title for title, _ in DOCS]
    got = {}
    for on in (False, True):
        r = RagPipeline(encoder=BagOfWords(), batch=BatchConfig(max_batch=8), max_seqs=4, top_k=2,
                        prefix_caching=on)
        try:
            answers = asyncio.run(r.run(qs, rate_per_s=100, min_new=2, max_new=8, seed=4))
            got[on] = (answers, r.stats(answers), len(r.prefix))
        finally:
            r.close()
    (a_off, s_off, n_prefix), (a_on, s_on, _) = got[False], got[True]
    assert n_prefix >= 32, "the system prompt should fill at least two 16-token blocks"
    assert all(a.output == b.output for a, b in zip(a_off, a_on))
    off, on = s_off["generator"], s_on["generator"]
    assert off["prefix_hit_tokens"] == 0 and off["prefill_tokens_fed"] == off["prompt_tokens"]
    assert on["prefix_caching"] and on["prefix_hit_tokens"] >= (len(qs) - 4) * 16
    assert on["prefill_tokens_fed"] == on["prompt_tokens"] - on["prefix_hit_tokens"]
    assert on["prefix_hit_blocks"] * 16 == on["prefix_hit_tokens"]  # whole blocks only
    assert on["prefill_saved"] == pytest.approx(on["prefix_hit_tokens"] / on["prompt_tokens"])
    assert off["prefill_saved"] == 0.0 < on["prefill_saved"]
    for a in a_on:  # end-to-end = embed + retrieve + generator queue + prefill + first step
        assert a.e2e_ttft_ms >= a.embed_ms + a.ttft_ms - 1e-6
        assert a.e2e_ttft_ms <= a.total_ms + 1e-6
    t = s_on["ttft"]
    assert {"end_to_end", "generator_only"} <= set(t)
    assert t["end_to_end_p50_ms"] > t["generator_only_p50_ms"]
    assert t["generator_only_p50_ms"] == s_on["generator"]["ttft_p50_ms"]


def test_the_first_token_wait_is_split_into_its_parts():
    """``ttft_parts``: embedding + retrieval + generator-only TTFT make the end-to-end TTFT
    (medians of made-up answers: no model needed)."""
    from labsupport.serving.demo.rag import Answer, RagPipeline
    ans = [Answer("q", ["d"], 10, [1], embed_ms=e, ttft_ms=g, generate_ms=0, total_ms=0,
                  e2e_ttft_ms=e + 2 + g) for e, g in ((100, 8), (140, 10), (120, 9))]
    p = RagPipeline.ttft_parts(ans)
    assert (p["embed_ms"], p["retrieve_ms"], p["generator_ms"], p["end_to_end_ms"]) == \
        (120, 2, 9, 131)
    assert p["share"]["embed"] == round(120 / 131, 3)
