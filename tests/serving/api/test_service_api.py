"""The embedding service over real HTTP on 127.0.0.1: embed, bad input, config, metrics."""
import httpx
import numpy as np
import pytest

from svc_helpers import service  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(60)


def post(svc, path, **kw):
    return httpx.post(svc.url + path, timeout=10, **kw)


def test_binds_loopback_only(service):
    assert service.url.startswith("http://127.0.0.1:")
    assert service.get("/healthz")["status"] == "ok"


def test_embed_one_text_and_a_list(service):
    one = post(service, "/embed", json={"input": "the queue grows"})
    assert one.status_code == 200, one.text
    many = post(service, "/embed", json={"input": ["a b", "the queue grows", "c"]})
    assert many.status_code == 200, many.text
    e1, e3 = np.array(one.json()["embeddings"]), np.array(many.json()["embeddings"])
    assert e1.shape[0] == 1 and e3.shape[0] == 3
    np.testing.assert_allclose(e3[1], e1[0], atol=1e-6)  # each answer reaches its own text
    np.testing.assert_allclose(np.linalg.norm(e3, axis=1), 1.0, atol=1e-5)
    assert many.json()["tokens"] == [4, 5, 3]


BAD = [  # (body, status, words the message must contain)
    (b"{not json", 400, ["JSON"]),
    (b"[1, 2]", 422, ['"input"']),
    (b'{"text": "hi"}', 422, ['"input"']),
    (b'{"input": 42}', 422, ["input", "string"]),
    (b'{"input": []}', 422, ["input", "1..64"]),
    (b'{"input": ["ok", 7]}', 422, ["input[1]", "string"]),
    (b'{"input": "   "}', 422, ["input", "empty", "1..256"]),
    (b'{"input": "hi", "extra": 1}', 422, ["extra"]),
    (('{"input": "%s"}' % ("word " * 300)).encode(), 413, ["input", "1..256", "302"]),
    (('{"input": %s}' % (["x"] * 65)).replace("'", '"').encode(), 422, ["1..64", "65"]),
]


@pytest.mark.parametrize("body,status,words", BAD, ids=[
    "malformed", "not-object", "no-input", "wrong-type", "empty-list", "item-type",
    "blank", "unknown-field", "over-long", "too-many"])
def test_bad_input_is_a_clear_4xx_and_the_service_keeps_serving(service, body, status, words):
    r = post(service, "/embed", content=body)
    assert r.status_code == status, r.text
    msg = r.json()["error"]
    for w in words:
        assert w in msg, f"{w!r} missing from {msg!r}"
    assert post(service, "/embed", json={"input": "still alive"}).status_code == 200


def test_config_changes_the_running_service_and_is_validated(service):
    before = service.get("/config")
    try:
        assert service.configure(max_batch=2, max_delay_ms=12.5) == {**before, "max_batch": 2,
                                                                     "max_delay_ms": 12.5}
        m = service.metrics()
        assert m["lab_max_batch"] == 2 and m['lab_policy{policy="work_conserving"}'] == 1
        assert "lab_max_delay_ms" not in m  # unused by work_conserving: not shown as a wait
        r = post(service, "/embed", json={"input": ["a", "b", "c", "d", "e"]})
        assert r.status_code == 200  # 5 texts through max_batch=2: batches of <= 2
        assert service.get("/stats")["config"]["max_batch"] == 2
        for knobs, words in [({"max_batch": 0}, ["max_batch", "[1, 4096]"]),
                             ({"max_batch": "8"}, ["max_batch", "integer"]),
                             ({"max_delay_ms": -1}, ["max_delay_ms", "[0.0, 60000.0]"]),
                             ({"max_queue": 0}, ["max_queue", ">= 1"]),
                             ({"policy": "lifo"}, ["policy", "work_conserving"]),
                             ({"max_batchh": 3}, ["max_batchh", "max_batch"]),
                             ({}, ["max_batch"])]:
            r = post(service, "/config", json=knobs)
            assert r.status_code == 422, (knobs, r.text)
            assert all(w in r.json()["error"] for w in words), (knobs, r.json())
        assert post(service, "/config", content=b"max_batch=3").status_code == 400
        assert service.get("/config")["max_batch"] == 2  # refused changes changed nothing
        assert service.configure(policy="early")["policy"] == "early"
    finally:
        service.configure(**before)
    assert service.get("/config") == before


def test_metrics_are_prometheus_text(service):
    for _ in range(3):
        post(service, "/embed", json={"input": ["one two", "three"]})
    text, m = service.get("/metrics"), service.metrics()
    assert "# TYPE lab_request_latency_ms histogram" in text
    assert m['lab_requests_total{outcome="ok"}'] >= 3
    for hist in ("lab_batch_size", "lab_request_latency_ms", "lab_queue_wait_ms"):
        buckets = [v for k, v in m.items() if k.startswith(hist + "_bucket")]
        assert buckets == sorted(buckets) and buckets[-1] == m[hist + "_count"] > 0
    assert m["lab_padded_tokens_total"] >= m["lab_real_tokens_total"] > 0
    assert m["lab_padding_ratio"] >= 1.0
    assert {"lab_queue_depth", "lab_rejection_latency_ms_count",
            "lab_resident_memory_bytes"} <= set(m)


@pytest.mark.parametrize("argv,words", [
    (["--model", "fake", "--max-batch", "0"], ["max_batch", "[1, 4096]"]),
    (["--model", "fake", "--max-delay-ms", "-1"], ["max_delay_ms"]),
    (["--model", "fake", "--max-queue", "0"], ["max_queue", ">= 1"]),
    (["--model", "fake", "--port", "70000"], ["port", "[0, 65535]"]),
    (["--model", "fake", "--fake-fixed-ms", "-5"], ["fixed_ms"]),
    (["--model", "fake", "--max-items", "0"], ["max_items"])])
def test_serve_cli_refuses_bad_options_before_binding(argv, words, capsys):
    from labsupport.serving.ops.serve import main
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert all(w in err for w in words), err
