"""``labsupport serve``: an HTTP embedding service on 127.0.0.1 with a micro-batcher in
front of the encoder (FastAPI + uvicorn).

Endpoints: ``POST /embed`` (TEI's ``{"inputs": …}`` or the lab's ``{"input": …}``,
``serving/tei_api.py``); ``POST /v1/embeddings`` and ``GET /v1/models`` (OpenAI's,
``serving/openai_api.py``); all share one ``MicroBatcher`` (``serving/embed_core.py``);
``GET /metrics`` (Prometheus text format); ``GET|POST /config`` (``max_batch``,
``max_delay_ms``, ``max_queue``, ``policy``; changed on the running service);
``GET /stats`` (JSON of the last few seconds, for the dashboard); ``GET /healthz``.

A full queue answers 429 at once (bounded memory: at most ``max_queue`` waiting texts);
bad input answers 4xx naming the field and its allowed range. ``--model fake`` sleeps
``a + b·n`` ms per batch instead of running MiniLM, for tests and demos without the model.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
from starlette.requests import Request  # module level: FastAPI resolves handler annotations

from ..batching.config import DEFAULT_POLICY, DELAY_HELP, BatchConfig
from ..batching.policies import POLICIES, make_policy
from ..batching.runtime import MicroBatcher
from ..costs import ServiceModel, fake_model
from .embed_core import BadInput
from .net import HOST, free_socket, pid_alive
from .stats import ServiceMetrics
from .tei_api import parse_embed  # noqa: F401 (0.1.0's labsupport.service.parse_embed)
from ..validate import check_choice, check_int

CONFIG_KNOBS = ("max_batch", "max_delay_ms", "max_queue", "policy")


class FakeEncoder:
    """A stand-in encoder: sleeps ``cost(n, padded tokens)`` ms of a ``ServiceModel`` in the
    lab's one ``fake_model`` (default: 5 ms + 0.2 ms per item), returns deterministic unit vectors.
    Tokens are whitespace words + 2 (like [CLS] … [SEP])."""

    def __init__(self, cost: ServiceModel | None = None, dim: int = 16, max_length: int = 256):
        self.cost = cost or ServiceModel()
        self.dim = check_int("dim", dim, 1, 4096)
        self.max_length = check_int("max_length", max_length, 3)
        self.api_ids = ("fake",)  # the model names clients may ask for (OpenAI's "model")
        self.name = (f"fake({self.cost.fixed_ms:g} ms + {self.cost.per_item_ms:g} ms/item"
                     f" + {self.cost.per_token_ms:g} ms/token)")

    def count_tokens(self, text: str) -> int:
        return len(text.split()) + 2

    def embed(self, texts: list[str]) -> np.ndarray:
        return fake_model(self.cost, self._vectors, length=self.count_tokens, spin_ms=0.2)(texts)

    def _vectors(self, texts: list[str]) -> np.ndarray:
        seeds = [sum(t.encode()) + 7 * len(t) for t in texts]
        vecs = np.stack([np.random.default_rng(s).standard_normal(self.dim) for s in seeds]) \
            if texts else np.zeros((0, self.dim))
        return vecs / np.linalg.norm(vecs, axis=1, keepdims=True).clip(1e-12)


def load_embedder(name: str, **fake_knobs):
    """``"fake"`` → FakeEncoder(**fake_knobs); ``"minilm"`` → the real encoder (CUDA if any)."""
    check_choice("model", name, ("fake", "minilm"))
    if name == "fake":
        return FakeEncoder(ServiceModel(**{k: v for k, v in fake_knobs.items()
                                           if k in ("fixed_ms", "per_item_ms", "per_token_ms")}))
    from ..encoder.model import load_encoder
    return load_encoder()


def model_name(model) -> str:
    return getattr(model, "name", None) or repr(model)


@dataclass
class Limits:
    """Per-request input limits (checked before anything is queued)."""
    max_items: int = 64            # texts per request; bigger lists should be split by the client
    max_body_bytes: int = 1 << 20  # 1 MiB: far above 64 texts of 256 tokens


def parse_config(body: bytes) -> dict[str, Any]:
    """Validate a ``/config`` body into knobs (values checked later by ``BatchConfig``)."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadInput(f"body must be JSON like {{\"max_batch\": 16}}: {exc}", 400) from None
    if not isinstance(data, dict) or not data:
        raise BadInput(f"body must be a JSON object with one or more of {list(CONFIG_KNOBS)}")
    extra = set(data) - set(CONFIG_KNOBS)
    if extra:
        raise BadInput(f"unknown knob(s) {sorted(extra)}; allowed: {list(CONFIG_KNOBS)}")
    if "policy" in data:
        try:
            check_choice("policy", data["policy"], POLICIES)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
    return data


class EmbeddingService:
    """The model behind a ``MicroBatcher``, plus metrics; the FastAPI app wraps this."""

    def __init__(self, model, cfg: BatchConfig, policy: str = DEFAULT_POLICY,
                 limits: Limits | None = None):
        self.model, self.limits = model, limits or Limits()
        self.policy_name = check_choice("policy", policy, POLICIES)
        self.metrics = ServiceMetrics()
        self.in_flight = 0  # accepted embed requests not answered yet
        self.batcher = MicroBatcher(self._infer, max_batch=cfg.max_batch,
                                    max_delay_ms=cfg.max_delay_ms, max_queue=cfg.max_queue,
                                    max_tokens=cfg.max_tokens, policy=policy)

    def _infer(self, items: list[tuple[str, int, float]]) -> list:
        start = time.perf_counter()
        vecs = self.model.embed([t for t, _, _ in items])
        end = time.perf_counter()
        lengths = [n for _, n, _ in items]
        padded = self.batcher.policy.padded_tokens([SimpleNamespace(length=n) for n in lengths])
        self.metrics.batch(len(items), padded, sum(lengths),
                           [(start - t0) * 1000.0 for _, _, t0 in items],
                           (end - start) * 1000.0)
        return list(np.asarray(vecs, dtype=float))

    def config(self) -> dict[str, Any]:
        c = self.batcher.cfg
        return {"max_batch": c.max_batch, "max_delay_ms": c.max_delay_ms,
                "max_queue": c.max_queue, "policy": self.policy_name}

    def reconfigure(self, knobs: dict[str, Any]) -> dict[str, Any]:
        knobs = dict(knobs)
        policy = knobs.pop("policy", None)
        try:
            self.batcher.reconfigure(**knobs)  # BatchConfig validates before changing
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        if policy is not None and policy != self.policy_name:
            self.batcher.policy = make_policy(policy, self.batcher.cfg)
            self.policy_name = policy
        self.metrics.config_changed()
        return self.config()

    async def embed(self, items: list[tuple[str, int]]) -> list:
        """Queue every text; all or nothing: a full queue rejects the whole request."""
        self.batcher.admit(len(items))
        now = time.perf_counter()
        tasks = [asyncio.ensure_future(self.batcher.submit((t, n, now), length=n))
                 for t, n in items]
        self.in_flight += 1
        try:
            return await asyncio.gather(*tasks)
        except BaseException:
            for t in tasks:  # the request failed as a whole: drop its other texts
                t.cancel()
            raise
        finally:
            self.in_flight -= 1


def make_app(svc: EmbeddingService, *, parent_pid: int | None = None, ready_file=None):
    """The FastAPI app around ``svc``. ``parent_pid``: exit when that process is gone.
    ``ready_file``: written with the URL once the batcher runs (for background starts)."""
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse, Response

    def err(status: int, msg: str, **extra) -> JSONResponse:
        headers = {"Retry-After": "1"} if status in (429, 503) else None
        return JSONResponse({"error": msg, **extra}, status_code=status, headers=headers)

    @asynccontextmanager
    async def lifespan(app):
        await svc.batcher.start()
        watch = asyncio.create_task(_watch_parent(app, parent_pid)) if parent_pid else None
        if ready_file:
            _write_ready(ready_file, app.state.url)
        yield
        if watch:
            watch.cancel()
        await svc.batcher.close(drain=True)

    app = FastAPI(title="labsupport embedding service", lifespan=lifespan)
    app.state.url = None

    from . import openai_api, tei_api  # POST /embed (TEI + lab), /v1/… (OpenAI)
    app.include_router(tei_api.router(svc))
    app.include_router(openai_api.router(svc))

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
        return {"status": "ok", "model": model_name(svc.model), "queue_depth": svc.batcher.queue_depth,
                "in_flight": svc.in_flight, **svc.config()}

    return app


async def _watch_parent(app, parent_pid: int) -> None:
    """Ask uvicorn to stop once the parent process (a notebook kernel) has gone."""
    while pid_alive(parent_pid) and os.getppid() == parent_pid:
        await asyncio.sleep(0.5)
    server = getattr(app.state, "server", None)
    if server is not None:
        server.should_exit = True


def _write_ready(path, url: str) -> None:
    tmp = Path(f"{path}.tmp")
    tmp.write_text(url)
    tmp.replace(path)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="labsupport serve", description=__doc__.split("\n\n")[0],
                                allow_abbrev=False)  # replicas.py strips options by full name
    p.add_argument("--port", type=int, default=8000, help="TCP port on 127.0.0.1 (0: any free)")
    p.add_argument("--model", default="minilm", choices=("minilm", "fake"))
    p.add_argument("--fake-fixed-ms", type=float, default=ServiceModel.fixed_ms, help="fake model: ms per batch")
    p.add_argument("--fake-per-item-ms", type=float, default=ServiceModel.per_item_ms, help="fake model: ms per text")
    p.add_argument("--fake-per-token-ms", type=float, default=0.0,
                   help="fake model: ms per padded token")
    p.add_argument("--max-batch", type=int, default=BatchConfig.max_batch)
    p.add_argument("--max-delay-ms", type=float, default=BatchConfig.max_delay_ms, help=DELAY_HELP)
    p.add_argument("--max-queue", type=int, default=BatchConfig.max_queue,
                   help="texts allowed to wait; more → 429 (bounds memory and latency)")
    p.add_argument("--policy", default=DEFAULT_POLICY, choices=sorted(POLICIES))
    p.add_argument("--max-items", type=int, default=Limits.max_items, help="texts per request")
    p.add_argument("--threads", type=int, default=1,
                   help="torch CPU threads for the model (1: leaves a core to the HTTP loop; "
                        "more threads spin and starve it on a small machine)")
    p.add_argument("--ready-file", help="write the URL here once serving")
    p.add_argument("--parent-pid", type=int, help="stop when this process exits")
    from .replicas import add_replica_args
    add_replica_args(p)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.replicas != 1:  # N copies of this service behind labsupport.serving.router
        from .replicas import serve_replicas
        return serve_replicas(args, list(sys.argv[1:] if argv is None else argv))
    import uvicorn
    try:
        cfg = BatchConfig(max_batch=args.max_batch, max_delay_ms=args.max_delay_ms,
                          max_queue=args.max_queue)
        check_int("port", args.port, 0, 65535)
        limits = Limits(max_items=check_int("max_items", args.max_items, 1, 4096))
        if args.model != "fake":
            import torch
            torch.set_num_threads(check_int("threads", args.threads, 1, 256))
        model = load_embedder(args.model, fixed_ms=args.fake_fixed_ms,
                           per_item_ms=args.fake_per_item_ms, per_token_ms=args.fake_per_token_ms)
    except ValueError as exc:
        print(f"labsupport serve: {exc}", file=sys.stderr)
        return 2
    svc = EmbeddingService(model, cfg, args.policy, limits)
    sock = free_socket(args.port)
    url = f"http://{HOST}:{sock.getsockname()[1]}"
    app = make_app(svc, parent_pid=args.parent_pid, ready_file=args.ready_file)
    app.state.url = url
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                           timeout_graceful_shutdown=5, backlog=4096))
    app.state.server = server
    print(f"labsupport serve: {model_name(model)}, {svc.config()} on {url}", flush=True)
    server.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
