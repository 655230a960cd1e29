"""``POST /embed``: Hugging Face Text Embeddings Inference's body, and the lab's own.

- TEI: ``{"inputs": "text" | ["text", …], "normalize": true, "truncate": false,
  "truncation_direction": "right"}`` → a list of vectors (one per input, also for a single
  string). Errors are TEI's: body ``{"error": …, "error_type": …}``; 413 too large (body,
  too many inputs, an input over the token limit), 422 invalid, 400 empty, 429 overloaded,
  424 model failure, 503 shutting down.
- The lab's own (kept for the notebooks): ``{"input": "text" | ["text", …]}`` →
  ``{"embeddings": […], "tokens": […], "latency_ms": …}``; 400 malformed, 422 invalid,
  413 too long, 429 queue full. Its errors carry the same two fields.

Both go through ``embed_core.run_embed``: one batcher, one queue-full rule; the route is
served at the ASGI level (``asgi.EmbedRoutes``).
"""
from __future__ import annotations

import numpy as np

from .asgi import Reply, json_reply
from .embed_core import BadInput, Parsed, load_json, parse_texts, retry_headers, run_embed

TEI_FIELDS = {"inputs", "normalize", "truncate", "truncation_direction", "prompt_name"}
TEI_TYPES = {"invalid": "validation", "too_large": "validation", "empty": "empty",
             "not_found": "validation", "overloaded": "overloaded",
             "unavailable": "unhealthy", "backend": "backend"}
TEI_STATUS = {500: 424}  # TEI answers a model failure with 424 Failed Dependency
EXAMPLE = '{"inputs": "text"}'


def parse_tei(data: dict, model, max_items: int) -> Parsed:
    """Validate a TEI body (a dict with ``inputs``)."""
    extra = set(data) - TEI_FIELDS
    if extra:
        raise BadInput(f"unknown field(s) {sorted(extra)}; allowed: {sorted(TEI_FIELDS)}",
                       param=sorted(extra)[0])
    truncate = data.get("truncate", False)
    for name, value in (("normalize", data.get("normalize", True)), ("truncate", truncate)):
        if not isinstance(value, bool):
            raise BadInput(f"{name} must be true or false, got {value!r}", param=name)
    if data.get("normalize", True) is False:
        raise BadInput("normalize=false is not supported: this service returns unit-length "
                       "embeddings only; omit normalize or set it to true", param="normalize")
    direction = data.get("truncation_direction", "right")
    if not isinstance(direction, str) or direction.lower() != "right":
        raise BadInput(f"truncation_direction must be \"right\" (the only one supported), "
                       f"got {direction!r}", param="truncation_direction")
    if data.get("prompt_name") is not None:
        raise BadInput("prompt_name is not supported: this model has no prompts; omit it",
                       param="prompt_name")
    items = parse_texts(data["inputs"], "inputs", model, max_items, truncate=truncate,
                        status={"too_many": 413, "empty": 400})
    return Parsed(items, {"api": "tei"})


def parse_lab(data, model, max_items: int) -> Parsed:
    """Validate the lab's own body ``{"input": …}`` (no other field)."""
    if not isinstance(data, dict) or "input" not in data:
        raise BadInput('body must be a JSON object with the field "inputs" (TEI) or '
                       f'"input" (the lab\'s own): a string or a list of 1..{max_items} '
                       'strings', param="input")
    extra = set(data) - {"input"}
    if extra:
        raise BadInput(f"unknown field(s) {sorted(extra)}; the lab's body has only \"input\" "
                       f"(TEI's has {sorted(TEI_FIELDS)})", param=sorted(extra)[0])
    return Parsed(parse_texts(data["input"], "input", model, max_items), {"api": "lab"})


def parse_embed_body(body: bytes, model, max_items: int) -> Parsed:
    """A ``/embed`` body: ``inputs`` → TEI, otherwise the lab's own."""
    data = load_json(body, EXAMPLE)
    if isinstance(data, dict) and "inputs" in data:
        return parse_tei(data, model, max_items)
    return parse_lab(data, model, max_items)


def handler(svc):
    """The ``POST /embed`` handler for ``svc`` (an ``EmbeddingService``), an ``asgi``
    embed route."""
    async def embed(read) -> Reply:
        seen: list[Parsed] = []

        def parse(body: bytes) -> Parsed:
            seen.append(parse_embed_body(body, svc.model, svc.limits.max_items))
            return seen[0]
        try:
            parsed, vecs, ms = await run_embed(svc, read, parse)
        except BadInput as exc:
            lab = bool(seen) and seen[0].opts["api"] == "lab"
            status = exc.status if lab else TEI_STATUS.get(exc.status, exc.status)
            body = {"error": str(exc), "error_type": TEI_TYPES.get(exc.kind, "validation")}
            if exc.status == 429:
                body["queue_depth"] = svc.batcher.queue_depth
            return json_reply(status, body, retry_headers(status))
        if parsed.opts["api"] == "tei":
            return json_reply(200, np.stack(vecs).round(7))
        return json_reply(200, {"embeddings": np.stack(vecs).round(6),
                                "tokens": [n for _, n in parsed.items],
                                "latency_ms": round(ms, 3)})
    return embed
