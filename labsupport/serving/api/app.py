"""The HTTP app around one ``EmbeddingService`` (FastAPI; ``labsupport serve`` runs it,
``serving/ops/serve.py``).

Endpoints: ``POST /embed`` (TEI's ``{"inputs": …}`` or the lab's ``{"input": …}``,
``tei_api.py``); ``POST /v1/embeddings`` and ``GET /v1/models`` (OpenAI's,
``openai_api.py``); all share the service's one ``MicroBatcher`` (``embed_core.py``), and
the two embed routes are answered at the ASGI level (``asgi.py``);
``GET /metrics`` (Prometheus text format); ``GET|POST /config`` (the knobs, changed on the
running service); ``GET /stats`` (JSON of the last few seconds, for the dashboard);
``GET /healthz``.

A full queue answers 429 at once (bounded memory: at most ``max_queue`` waiting texts);
bad input answers 4xx naming the field and its allowed range.
"""
from __future__ import annotations

from contextlib import asynccontextmanager

from starlette.requests import Request  # module level: FastAPI resolves handler annotations

from . import openai_api, tei_api
from .asgi import EmbedRoutes
from .embed_core import BadInput, retry_headers
from .encoders import model_name
from .service import EmbeddingService, parse_config


def make_app(svc: EmbeddingService) -> EmbedRoutes:
    """The ASGI app around ``svc``: the embed routes (``asgi.EmbedRoutes``) in front of a
    FastAPI app for the rest; the batcher starts with the app and drains when it shuts
    down."""
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse, Response

    def err(status: int, msg: str, **extra) -> JSONResponse:
        return JSONResponse({"error": msg, **extra}, status_code=status,
                            headers=retry_headers(status))

    @asynccontextmanager
    async def lifespan(app):
        await svc.batcher.start()
        yield
        await svc.batcher.close(drain=True)

    app = FastAPI(title="labsupport embedding service", lifespan=lifespan)
    app.include_router(openai_api.router(svc))  # GET /v1/models

    @app.get("/metrics")
    async def metrics():
        from prometheus_client import CONTENT_TYPE_LATEST
        return Response(svc.metrics.prometheus(svc), media_type=CONTENT_TYPE_LATEST)

    @app.get("/stats")
    async def stats(window_s: float = 2.0):
        return svc.metrics.snapshot(svc, max(0.2, min(window_s, 60.0)))

    @app.get("/config")
    async def get_config():
        return svc.config()

    @app.post("/config")
    async def set_config(request: Request):
        try:
            return svc.reconfigure(parse_config(await request.body()))
        except BadInput as exc:
            return err(exc.status, str(exc), config=svc.config())

    @app.get("/healthz")
    async def healthz():
        return {"status": "ok", "model": model_name(svc.model),
                "queue_depth": svc.batcher.queue_depth, "in_flight": svc.in_flight,
                **svc.config()}

    # the embed routes are answered in front of FastAPI's per-request machinery (asgi.py)
    return EmbedRoutes(app, {"/embed": tei_api.handler(svc),  # TEI + the lab's own
                             "/v1/embeddings": openai_api.handler(svc)},
                       limit=lambda: svc.limits.max_body_bytes)
