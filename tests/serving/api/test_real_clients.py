"""Real clients against the real service (MiniLM on CPU): the ``openai`` SDK and AIPerf."""
import base64

import numpy as np
import pytest

from labsupport.serving.ops.launcher import start_service
from labsupport.benches.service import AIPERF_HINT, aiperf_bin, run_aiperf

pytestmark = pytest.mark.timeout(240)
openai = pytest.importorskip("openai", reason="pip install -r requirements.txt (openai)")
MODEL = "all-MiniLM-L6-v2"


@pytest.fixture(scope="module")
def minilm():
    svc = start_service("minilm", max_batch=16, max_delay_ms=5.0, timeout_s=180)
    yield svc
    svc.stop()


@pytest.fixture(scope="module")
def client(minilm):
    c = openai.OpenAI(base_url=minilm.url + "/v1", api_key="lab", max_retries=0, timeout=30)
    yield c
    c.close()


def test_openai_sdk_embeds_one_text_and_a_batch(minilm, client):
    texts = ["the queue grows", "a batch waits for its window", "padding costs tokens"]
    one = client.embeddings.create(model=MODEL, input=texts[0])  # SDK default: base64
    batch = client.embeddings.create(model=MODEL, input=texts, encoding_format="float")
    assert one.model == batch.model == MODEL and len(batch.data) == 3
    assert [d.index for d in batch.data] == [0, 1, 2]
    lab = minilm.embed(texts)  # the lab's own route, same batcher, same model
    got = np.array([d.embedding for d in batch.data])
    assert got.shape == (3, 384)
    np.testing.assert_allclose(got, lab, atol=1e-5)
    np.testing.assert_allclose(one.data[0].embedding, lab[0], atol=1e-5)
    # usage counts [CLS] and [SEP] too: more tokens than words
    assert batch.usage.prompt_tokens == batch.usage.total_tokens > len(" ".join(texts).split())


def test_openai_sdk_base64_decodes_to_the_float_answer(client):
    f = client.embeddings.create(model=MODEL, input="tokens", encoding_format="float")
    b = client.embeddings.create(model=MODEL, input="tokens", encoding_format="base64")
    assert isinstance(f.data[0].embedding, list) and isinstance(b.data[0].embedding, str)
    raw = np.frombuffer(base64.b64decode(b.data[0].embedding), dtype="<f4")  # asked: undecoded
    np.testing.assert_allclose(raw, f.data[0].embedding, atol=1e-6)


def test_openai_sdk_raises_its_own_errors_with_our_message(client):
    with pytest.raises(openai.NotFoundError) as e:
        client.embeddings.create(model="text-embedding-3-small", input="x")
    assert e.value.status_code == 404 and "all-MiniLM-L6-v2" in e.value.message
    with pytest.raises(openai.BadRequestError) as e:
        client.embeddings.create(model=MODEL, input="x", dimensions=64)
    assert e.value.body["param"] == "dimensions" and "384" in e.value.message
    with pytest.raises(openai.BadRequestError) as e:
        client.embeddings.create(model=MODEL, input=[[101, 2023, 102]])
    assert "token-id" in e.value.message
    assert [m.id for m in client.models.list()] == [MODEL]


@pytest.mark.slow
@pytest.mark.skipif(aiperf_bin() is None, reason=AIPERF_HINT)
def test_aiperf_profiles_the_service_offline(minilm):
    before = minilm.get("/stats", window_s=60)["totals"]["ok"]
    res = run_aiperf(minilm.url, MODEL, n=40, concurrency=4, tokens=32, timeout_s=180)
    assert res["returncode"] == 0, res["log_tail"]
    assert res["ok"] == 40 and res["errors"] == 0, res
    assert minilm.get("/stats", window_s=60)["totals"]["ok"] - before == 40
    assert 0 < res["latency_ms"]["p50"] <= res["latency_ms"]["p99"]
