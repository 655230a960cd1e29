"""The one embed path that every HTTP API of the service shares (the lab's own ``/embed``,
TEI's ``/embed`` and OpenAI's ``/v1/embeddings``): read the body under a size limit
(``asgi.read_body``), answer 429 before parsing when the queue is full, parse with the
API's own parser, queue the texts on the service's single ``MicroBatcher`` and count the
outcome.

Each API only parses its body and shapes its answers; a failure anywhere raises
``BadInput(message, status, param=…, kind=…)`` and the API turns it into its own error
body. ``kind`` is one of ``KINDS``.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from ...batching.runtime import BatcherClosed, QueueFull
from ...validate import check_choice

MINILM_IDS = ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", "minilm")
KINDS = ("invalid", "too_large", "empty", "not_found", "overloaded", "unavailable", "backend")


class BadInput(ValueError):
    """A client error: ``status`` is the HTTP status to answer with."""

    def __init__(self, msg: str, status: int = 422, *, param: str | None = None,
                 kind: str = "invalid"):
        super().__init__(msg)
        self.status, self.param = status, param  # param: the field at fault
        self.kind = check_choice("kind", kind, KINDS)  # what each API maps to its own error


@dataclass
class Parsed:
    """A validated request: ``items`` = ``[(text, tokens), …]`` plus API options."""
    items: list[tuple[str, int]]
    opts: dict[str, Any] = field(default_factory=dict)


def load_json(body: bytes, example: str) -> Any:
    """Decode a JSON body; 400 with an ``example`` of a good body otherwise."""
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadInput(f"body must be JSON like {example}: {exc}", 400) from None


def parse_texts(value, param: str, model, max_items: int, *, truncate: bool = False,
                status: dict[str, int] | None = None) -> list[tuple[str, int]]:
    """``value`` (a string or a list of 1..``max_items`` strings) → ``[(text, tokens)]``.
    Errors name ``param`` (``input``, ``inputs[3]``…). ``truncate``: cut texts over the
    model's ``max_length`` instead of refusing them. ``status`` overrides the HTTP status
    per kind (``invalid`` 422, ``too_many`` 422, ``too_long`` 413, ``empty`` 422)."""
    st = {"invalid": 422, "too_many": 422, "too_long": 413, "empty": 422, **(status or {})}
    single = isinstance(value, str)
    texts = [value] if single else value
    if not isinstance(texts, list):
        raise BadInput(f"{param} must be a string or a list of strings, got "
                       f"{type(value).__name__}", st["invalid"], param=param)
    if not 1 <= len(texts) <= max_items:
        raise BadInput(f"{param} must hold 1..{max_items} texts, got {len(texts)}",
                       st["too_many"], param=param,
                       kind="too_large" if st["too_many"] == 413 else "invalid")
    out = []
    for k, t in enumerate(texts):
        name = param if single else f"{param}[{k}]"
        if not isinstance(t, str):
            raise BadInput(f"{name} must be a string, got {type(t).__name__}",
                           st["invalid"], param=param)
        if not t.strip():
            raise BadInput(f"{name} is empty; give 1..{model.max_length} tokens of text",
                           st["empty"], param=param, kind="empty")
        n = model.count_tokens(t)
        if n > model.max_length and truncate:
            t = truncate_text(model, t)
            n = min(model.count_tokens(t), model.max_length)
        if n > model.max_length:
            raise BadInput(f"{name} has {n} tokens; allowed 1..{model.max_length} tokens "
                           "(split the text or truncate it)", st["too_long"], param=param,
                           kind="too_large" if st["too_long"] == 413 else "invalid")
        out.append((t, n))
    return out


def truncate_text(model, text: str) -> str:
    """The longest prefix of ``text`` that fits ``model.max_length`` tokens."""
    keep = model.max_length - 2  # room for [CLS] and [SEP]
    tok = getattr(model, "tokenizer", None)
    if tok is None:  # the fake model counts whitespace words
        return " ".join(text.split()[:keep])
    lock = getattr(model, "_tok_lock", None)
    if lock is not None:
        with lock:
            enc = tok(text, add_special_tokens=False, return_offsets_mapping=True,
                      verbose=False)
    else:
        enc = tok(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
    return text[:enc["offset_mapping"][keep - 1][1]]


def model_ids(model) -> tuple[str, ...]:
    """Names a client may send as ``model``; the first is the one the service reports."""
    return tuple(getattr(model, "api_ids", MINILM_IDS))


def embedding_dim(model) -> int:
    """Width of one embedding (384 for MiniLM)."""
    dim = getattr(model, "dim", None)
    if dim is None:
        dim = int(model.model.config.hidden_size)
    return int(dim)


async def run_embed(svc, read: Callable[[], Awaitable[bytes]],
                    parse: Callable[[bytes], Parsed]) -> tuple[Parsed, list, float]:
    """``read()`` (the body, ``asgi.read_body``) → ``parse`` → the service's batcher.
    Returns ``(parsed, vectors, ms)``; raises ``BadInput`` (with ``kind``) for every
    failure, already counted in the metrics."""
    t0 = time.perf_counter()
    q = svc.batcher
    try:
        body = await read()
    except BadInput:
        svc.metrics.outcome("bad_input")
        raise
    try:
        q.admit()  # full: answer before parsing
        try:
            parsed = parse(body)
        except BadInput:
            svc.metrics.outcome("bad_input")
            raise
        vecs = await svc.embed(parsed.items)
    except BadInput:  # already counted
        raise
    except QueueFull as exc:
        svc.metrics.outcome("rejected", (time.perf_counter() - t0) * 1000.0)
        raise BadInput(str(exc), 429, kind="overloaded") from None
    except BatcherClosed:
        svc.metrics.outcome("unavailable")
        raise BadInput("service is shutting down", 503, kind="unavailable") from None
    except Exception as exc:  # the model failed for this request only
        svc.metrics.outcome("error")
        raise BadInput(f"model error: {type(exc).__name__}: {exc}", 500,
                       kind="backend") from None
    ms = (time.perf_counter() - t0) * 1000.0
    svc.metrics.outcome("ok", ms, n=len(parsed.items))
    return parsed, vecs, ms


def retry_headers(status: int) -> dict[str, str] | None:
    """``Retry-After: 1`` on 429 and 503 (clients back off instead of hammering)."""
    return {"Retry-After": "1"} if status in (429, 503) else None
