"""OpenAI's embeddings API on the lab's service: ``POST /v1/embeddings`` and
``GET /v1/models`` (so the ``openai`` SDK and AIPerf can drive it unchanged).

Request: ``input`` (a string or a list of strings; token-id arrays are refused), ``model``
(one of ``GET /v1/models``), ``encoding_format`` (``float`` | ``base64``: little-endian
float32 bytes), ``dimensions`` (only the model's own width), ``user`` (ignored).
Response: ``{"object": "list", "data": [{"object": "embedding", "index": i, "embedding":
…}], "model": …, "usage": {"prompt_tokens": …, "total_tokens": …}}``.
Errors: ``{"error": {"message", "type", "param", "code"}}``; 400 invalid, 404 unknown
model, 413 body too large, 429 queue full, 503 shutting down, 500 model failure.
Every request goes through ``embed_core.run_embed`` (the service's one batcher), served at
the ASGI level (``asgi.EmbedRoutes``).
"""
from __future__ import annotations

import base64
import time

import numpy as np

from .asgi import Reply, json_reply
from .embed_core import BadInput, Parsed, embedding_dim, parse_texts, \
    load_json, model_ids, retry_headers, run_embed

FIELDS = {"input", "model", "encoding_format", "dimensions", "user"}
FORMATS = ("float", "base64")
EXAMPLE = '{"input": "text", "model": "all-MiniLM-L6-v2"}'
ERROR_TYPES = {429: ("rate_limit_error", "rate_limit_exceeded"),
               404: ("invalid_request_error", "model_not_found"),
               503: ("server_error", "service_unavailable"),
               500: ("server_error", "model_error")}
CREATED = int(time.time())  # "created" of /v1/models: when this process started (s)


def _token_ids(value) -> bool:
    """True for OpenAI's token-id forms: ``[1, 2]`` or ``[[1, 2], [3]]``."""
    if not isinstance(value, list) or not value:
        return False
    first = value[0]
    return isinstance(first, int) or (isinstance(first, list) and bool(first)
                                      and isinstance(first[0], int))


def parse_openai(body: bytes, model, max_items: int) -> Parsed:
    """Validate an OpenAI embeddings body; every error names its ``param``."""
    data = load_json(body, EXAMPLE)
    if not isinstance(data, dict):
        raise BadInput(f"body must be a JSON object like {EXAMPLE}", 400)
    extra = sorted(set(data) - FIELDS)
    if extra:
        raise BadInput(f"unrecognized request argument(s) {extra}; allowed: {sorted(FIELDS)}",
                       400, param=extra[0])
    ids = model_ids(model)
    if "model" not in data:
        raise BadInput(f"model is required; this service serves {ids[0]!r} "
                       "(see GET /v1/models)", 400, param="model")
    if data["model"] not in ids:
        raise BadInput(f"model {data['model']!r} does not exist here; use one of "
                       f"{list(ids)} (GET /v1/models)", 404, param="model", kind="not_found")
    fmt = data.get("encoding_format") or "float"
    if fmt not in FORMATS:
        raise BadInput(f"encoding_format must be one of {list(FORMATS)}, got {fmt!r}", 400,
                       param="encoding_format")
    dim = embedding_dim(model)
    dims = data.get("dimensions")
    if dims is not None and (isinstance(dims, bool) or dims != dim):
        raise BadInput(f"dimensions={dims!r} is not supported: {ids[0]} returns {dim} "
                       f"dimensions and cannot shorten them; omit dimensions or pass {dim}",
                       400, param="dimensions")
    if "input" not in data:
        raise BadInput(f"input is required: a string or a list of 1..{max_items} strings",
                       400, param="input")
    if _token_ids(data["input"]):
        raise BadInput("input as token-id arrays is not supported: send text (a string or "
                       f"a list of 1..{max_items} strings)", 400, param="input")
    items = parse_texts(data["input"], "input", model, max_items,
                        status={"invalid": 400, "too_many": 400, "too_long": 400,
                                "empty": 400})
    return Parsed(items, {"format": fmt, "model": ids[0]})


def encode(vec: np.ndarray, fmt: str):
    """One embedding as float32 numbers (a NumPy array: ``asgi.json_reply`` writes it as a
    list) or as base64 of its little-endian float32 bytes."""
    v = np.asarray(vec, dtype="<f4")
    return base64.b64encode(v.tobytes()).decode("ascii") if fmt == "base64" else v


def error_body(exc: BadInput) -> dict:
    kind, code = ERROR_TYPES.get(exc.status, ("invalid_request_error", None))
    return {"error": {"message": str(exc), "type": kind, "param": exc.param, "code": code}}


def router(svc):
    """An ``APIRouter`` with ``GET /v1/models`` for ``svc`` (``handler`` serves
    ``POST /v1/embeddings``)."""
    from fastapi import APIRouter
    from fastapi.responses import JSONResponse

    api = APIRouter()

    def card(name: str) -> dict:
        return {"id": name, "object": "model", "created": CREATED, "owned_by": "labsupport"}

    @api.get("/v1/models")
    async def models():
        return {"object": "list", "data": [card(model_ids(svc.model)[0])]}

    @api.get("/v1/models/{name:path}")
    async def one_model(name: str):
        if name not in model_ids(svc.model):
            exc = BadInput(f"model {name!r} does not exist here; GET /v1/models lists them",
                           404, param="model")
            return JSONResponse(error_body(exc), status_code=404)
        return card(name)

    return api


def handler(svc):
    """The ``POST /v1/embeddings`` handler for ``svc``, an ``asgi`` embed route."""
    parse = lambda body: parse_openai(body, svc.model, svc.limits.max_items)  # noqa: E731

    async def embeddings(read) -> Reply:
        try:
            parsed, vecs, _ = await run_embed(svc, read, parse)
        except BadInput as exc:
            return json_reply(exc.status, error_body(exc), retry_headers(exc.status))
        fmt, tokens = parsed.opts["format"], sum(n for _, n in parsed.items)
        return json_reply(200, {
            "object": "list",
            "data": [{"object": "embedding", "index": i, "embedding": encode(v, fmt)}
                     for i, v in enumerate(vecs)],
            "model": parsed.opts["model"],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})
    return embeddings
