"""The embed routes at the ASGI level: ``POST /embed`` and ``POST /v1/embeddings`` are
answered here, before FastAPI's routing, dependency and response machinery, which cost
more CPU per request than the rest of the path together (``docs/architecture.md``, "Where
an HTTP request's time goes"). Every other route passes on to the FastAPI app.

An embed route is ``async handler(read) -> Reply``: ``read()`` returns the request body
(``BadInput`` 413 past the size limit) and the handler answers JSON bytes (``orjson``,
NumPy arrays written directly).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable

import orjson

from .embed_core import BadInput


@dataclass(slots=True)
class Reply:
    """One HTTP answer: status, JSON bytes, extra headers."""
    status: int
    body: bytes
    headers: dict[str, str] | None = None


def json_reply(status: int, obj: Any, headers: dict[str, str] | None = None) -> Reply:
    """``obj`` as JSON (NumPy arrays as nested lists of their own precision)."""
    return Reply(status, orjson.dumps(obj, option=orjson.OPT_SERIALIZE_NUMPY), headers)


Handler = Callable[[Callable[[], Awaitable[bytes]]], Awaitable[Reply]]


async def read_body(scope: dict, receive, limit: int) -> bytes:
    """The request body, or ``BadInput`` 413 as soon as it is known to pass ``limit`` bytes
    (from Content-Length, before reading anything; else while streaming)."""
    declared = next((v for k, v in scope["headers"] if k == b"content-length"), b"")
    if declared.isdigit() and int(declared) > limit:
        raise too_big(int(declared), limit)
    chunks, size = [], 0
    while True:
        msg = await receive()
        if msg["type"] == "http.disconnect":
            raise BadInput("client disconnected while sending the body", 400)
        chunk = msg.get("body", b"")
        if not chunks and not msg.get("more_body", False):  # usually one message holds all
            if len(chunk) > limit:
                raise too_big(len(chunk), limit)
            return chunk
        size += len(chunk)
        if size > limit:
            raise too_big(size, limit)
        chunks.append(chunk)
        if not msg.get("more_body", False):
            return b"".join(chunks)


def too_big(size: int, limit: int) -> BadInput:
    return BadInput(f"request body is {size} bytes; allowed at most {limit}", 413,
                    kind="too_large")


class EmbedRoutes:
    """ASGI middleware: ``POST`` to a path in ``routes`` is answered by its handler; any
    other request goes to ``app``. ``limit``: the body size limit in bytes."""

    def __init__(self, app, routes: dict[str, Handler], limit: Callable[[], int]):
        self.app, self.routes, self.limit = app, routes, limit

    async def __call__(self, scope, receive, send) -> None:
        handler = self.routes.get(scope.get("path")) if scope["type"] == "http" and \
            scope["method"] == "POST" else None
        if handler is None:
            return await self.app(scope, receive, send)
        reply = await handler(lambda: read_body(scope, receive, self.limit()))
        headers = [(b"content-type", b"application/json"),
                   (b"content-length", b"%d" % len(reply.body))]
        if reply.headers:
            headers += [(k.lower().encode(), v.encode()) for k, v in reply.headers.items()]
        await send({"type": "http.response.start", "status": reply.status, "headers": headers})
        await send({"type": "http.response.body", "body": reply.body})
