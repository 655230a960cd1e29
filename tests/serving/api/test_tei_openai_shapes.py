"""TEI's ``/embed`` and OpenAI's ``/v1/embeddings`` bodies over real HTTP (fake model):
shapes, every bad field named in the API's own error body, 413 before a huge body is read,
and 429 from the one shared batcher."""
import base64
import socket
import time
from urllib.parse import urlsplit

import httpx
import numpy as np
import pytest

from svc_helpers import service, until  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(60)


def post(svc, path, **kw):
    return httpx.post(svc.url + path, timeout=10, **kw)


def test_tei_body_gives_a_list_of_vectors_equal_to_the_labs_own(service):
    lab = post(service, "/embed", json={"input": ["a b", "the queue grows"]}).json()
    one = post(service, "/embed", json={"inputs": "the queue grows"})
    many = post(service, "/embed", json={"inputs": ["a b", "the queue grows"],
                                         "normalize": True, "truncate": False})
    assert one.status_code == many.status_code == 200, (one.text, many.text)
    assert np.asarray(one.json()).shape == (1, 16)  # a single string → still a list of one
    np.testing.assert_allclose(many.json(), lab["embeddings"], atol=1e-5)
    np.testing.assert_allclose(one.json()[0], lab["embeddings"][1], atol=1e-5)


def test_tei_truncate_cuts_a_long_input_instead_of_refusing_it(service):
    long = "word " * 300  # 302 tokens, limit 256
    refused = post(service, "/embed", json={"inputs": long})
    assert refused.status_code == 413 and refused.json()["error_type"] == "validation"
    assert "302" in refused.json()["error"] and "1..256" in refused.json()["error"]
    cut = post(service, "/embed", json={"inputs": long, "truncate": True})
    assert cut.status_code == 200, cut.text
    full = post(service, "/embed", json={"inputs": " ".join(["word"] * 254)}).json()
    np.testing.assert_allclose(cut.json(), full, atol=1e-6)  # the first 254 words


TEI_BAD = [  # (body, status, error_type, words)
    ({"inputs": 5}, 422, "validation", ["inputs", "string"]),
    ({"inputs": ["ok", 3]}, 422, "validation", ["inputs[1]", "string"]),
    ({"inputs": ["ok", "  "]}, 400, "empty", ["inputs[1]", "empty"]),
    ({"inputs": ["x"] * 65}, 413, "validation", ["inputs", "1..64", "65"]),
    ({"inputs": "x", "normalize": False}, 422, "validation", ["normalize"]),
    ({"inputs": "x", "normalize": "yes"}, 422, "validation", ["normalize", "true or false"]),
    ({"inputs": "x", "truncation_direction": "left"}, 422, "validation", ["truncation_direction"]),
    ({"inputs": "x", "pooling": "cls"}, 422, "validation", ["pooling"]),
]


@pytest.mark.parametrize("body,status,kind,words", TEI_BAD, ids=[
    "type", "item-type", "empty", "too-many", "normalize-false", "normalize-type",
    "left-truncation", "unknown-field"])
def test_tei_errors_use_teis_codes_and_body(service, body, status, kind, words):
    r = post(service, "/embed", json=body)
    assert r.status_code == status, r.text
    assert set(r.json()) == {"error", "error_type"} and r.json()["error_type"] == kind
    assert all(w in r.json()["error"] for w in words), r.json()


def test_openai_body_floats_and_base64_agree_with_the_labs_own(service):
    lab = post(service, "/embed", json={"input": ["a b", "c d e"]}).json()
    body = {"input": ["a b", "c d e"], "model": "fake", "user": "ignored"}
    f = post(service, "/v1/embeddings", json=body).json()
    b = post(service, "/v1/embeddings", json={**body, "encoding_format": "base64"}).json()
    assert f["object"] == "list" and f["model"] == "fake"
    assert lab["tokens"] == [4, 5]
    assert f["usage"] == {"prompt_tokens": 9, "total_tokens": 9}
    assert [d["index"] for d in f["data"]] == [0, 1]
    assert all(d["object"] == "embedding" for d in f["data"])
    vec_b = [np.frombuffer(base64.b64decode(d["embedding"]), dtype="<f4") for d in b["data"]]
    np.testing.assert_allclose([d["embedding"] for d in f["data"]], lab["embeddings"], atol=1e-5)
    np.testing.assert_allclose(vec_b, lab["embeddings"], atol=1e-5)
    models = httpx.get(service.url + "/v1/models").json()
    assert models["object"] == "list" and [m["id"] for m in models["data"]] == ["fake"]


OPENAI_BAD = [  # (body, status, param, words)
    ({"input": "x"}, 400, "model", ["model", "required", "fake"]),
    ({"input": "x", "model": "text-embedding-3-small"}, 404, "model", ["text-embedding-3-small"]),
    ({"input": [1, 2, 3], "model": "fake"}, 400, "input", ["token-id"]),
    ({"input": [[1, 2], [3]], "model": "fake"}, 400, "input", ["token-id"]),
    ({"input": "x", "model": "fake", "encoding_format": "int8"}, 400, "encoding_format",
     ["float", "base64"]),
    ({"input": "x", "model": "fake", "dimensions": 8}, 400, "dimensions", ["16"]),
    ({"input": "", "model": "fake"}, 400, "input", ["empty"]),
    ({"input": ["x"] * 65, "model": "fake"}, 400, "input", ["1..64"]),
    ({"input": "w " * 300, "model": "fake"}, 400, "input", ["302", "1..256"]),
    ({"input": "x", "model": "fake", "temperature": 1}, 400, "temperature", ["temperature"]),
]


@pytest.mark.parametrize("body,status,param,words", OPENAI_BAD, ids=[
    "no-model", "unknown-model", "token-ids", "token-id-lists", "format", "dimensions",
    "empty", "too-many", "too-long", "unknown-field"])
def test_openai_errors_use_openais_shape_and_name_the_param(service, body, status, param, words):
    r = post(service, "/v1/embeddings", json=body)
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert set(err) == {"message", "type", "param", "code"} and err["param"] == param
    assert all(w in err["message"] for w in words), err
    assert post(service, "/v1/embeddings", json={"input": "ok", "model": "fake"}).status_code == 200


@pytest.mark.parametrize("path", ["/embed", "/v1/embeddings"])
def test_a_50_mb_body_gets_413_before_it_is_sent(service, path):
    """Only the headers and 1 kB of a declared 50 MB body go out; the answer comes anyway
    (the rest is never sent, so the 413 cannot have waited for it)."""
    parts = urlsplit(service.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as s:
        t0 = time.perf_counter()
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: "
                  f"application/json\r\nContent-Length: {50 << 20}\r\n\r\n".encode() + b"x" * 1024)
        head = b""
        while b"bytes;" not in head and time.perf_counter() - t0 < 5:
            head += s.recv(4096) or b"bytes;"  # the error names the size; b"" = closed
        head = head.decode()
    assert head.startswith("HTTP/1.1 413"), head
    assert "52428800 bytes" in head


@pytest.mark.parametrize("path", ["/embed", "/v1/embeddings"])
def test_a_chunked_body_without_length_gets_413_once_past_the_limit(service, path):
    """No Content-Length: the body is counted while it streams in; 413 comes once it
    passes 1 MiB, before the client has sent all it meant to."""
    parts = urlsplit(service.url)
    chunk = b"x" * (256 << 10)
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as s:
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: "
                  "application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
        head = b""
        for _ in range(40):  # up to 10 MiB; the answer must come after ~4 chunks
            try:
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:  # the server answered and closed: read what it said
                break
            s.settimeout(0.05)
            try:
                head += s.recv(4096)
            except socket.timeout:
                pass
            s.settimeout(5)
            if b"bytes;" in head:
                break
        while b"bytes;" not in head:
            more = s.recv(4096)
            if not more:
                break
            head += more
    head = head.decode()
    assert head.startswith("HTTP/1.1 413"), head
    assert "allowed at most 1048576" in head


def test_all_apis_share_one_queue_and_its_429(service):
    """Hold 12 texts queued through /v1/embeddings (max_queue=16); /embed (TEI) and
    /v1/embeddings then answer 429 for 8 more although 4 would fit (all or nothing, none of
    them queued), and the held request completes once released.

    The gate is the batcher's own knobs, not a race with the drain: under ``early`` with
    ``max_batch`` above ``max_queue`` no full batch can form, and a 60 s delay (far past
    this test's timeout) keeps the texts queued until ``/config`` releases them."""
    import concurrent.futures as cf
    before = service.get("/config")
    service.configure(policy="early", max_delay_ms=60_000.0, max_batch=32, max_queue=16)
    with cf.ThreadPoolExecutor(1) as pool:
        fill = pool.submit(httpx.post, service.url + "/v1/embeddings", timeout=55,
                           json={"input": ["x y"] * 12, "model": "fake"})
        try:
            assert until(lambda: service.get("/healthz")["queue_depth"] == 12, 30), \
                service.get("/healthz")
            tei = post(service, "/embed", json={"inputs": ["a"] * 8})
            oai = post(service, "/v1/embeddings", json={"input": ["a"] * 8, "model": "fake"})
            held = service.get("/healthz")
        finally:
            service.configure(**before)  # the gate opens: the 12 held texts run
        done = fill.result()
    assert tei.status_code == 429 and tei.json()["error_type"] == "overloaded", tei.text
    assert tei.headers["retry-after"] == "1" and "max_queue=16" in tei.json()["error"]
    assert "12 requests waiting" in tei.json()["error"]
    assert oai.status_code == 429 and oai.json()["error"]["code"] == "rate_limit_exceeded"
    assert held["queue_depth"] == 12 and held["in_flight"] == 1, held  # nothing of theirs queued
    assert done.status_code == 200 and len(done.json()["data"]) == 12, done.text
