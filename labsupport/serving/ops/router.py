"""A small HTTP router in front of N copies of the embedding service.

A picker from ``labsupport.batching.routing`` (a plain object,
``pick(outstanding, usable) -> index``) chooses a replica for each request (``--routing``:
round robin, least outstanding, power of two choices); the replica simulator
(``sim.simulator.simulate_replicas``) asks the same code.

No request is lost: a replica that cannot be reached is marked down (a probe re-admits it
once ``/healthz`` answers) and the request goes to another one. A replica that answers
429 (queue full) passes the request on to the next one. The client sees 429 or 503 only
when every replica refused. Embedding is a pure function, so a retried request gives the
same answer.
"""
from __future__ import annotations

import asyncio
import time
from typing import Sequence

from ...batching.routing import make_picker
from .upstream import Upstream, UpstreamError


class Router:
    """Forwards requests to ``backends`` (base URLs) chosen by ``routing``."""

    def __init__(self, backends: Sequence[str], routing: str = "least_outstanding",
                 seed: int = 0, timeout_s: float = 120.0):
        self.backends = [b.rstrip("/") for b in backends]
        self.routing = routing
        self.picker = make_picker(routing, len(self.backends), seed)
        n = len(self.backends)
        self.outstanding, self.sent = [0] * n, [0] * n
        self.failures, self.spilled = [0] * n, [0] * n
        self.up = [True] * n
        self.pools = [Upstream(b, timeout_s=timeout_s) for b in self.backends]
        self._probe: asyncio.Task | None = None

    async def forward(self, method: str, path: str, body: bytes, content_type: str | None):
        """The first answer that is neither unreachable nor 429; else the last refusal."""
        tried: set[int] = set()
        last = None
        while True:
            usable = [self.up[k] and k not in tried for k in range(len(self.backends))]
            try:
                k = self.picker.pick(self.outstanding, usable)
            except LookupError:
                return last  # None: nothing answered at all
            tried.add(k)
            self.outstanding[k] += 1
            try:
                resp = await self.pools[k].request(method, path, body, content_type)
            except UpstreamError:
                self.failures[k] += 1
                self.up[k] = False  # the probe re-admits it
                continue
            finally:
                self.outstanding[k] -= 1
            self.sent[k] += 1
            if resp.status_code == 429:
                self.spilled[k] += 1
                last = resp
                continue
            return resp

    async def broadcast(self, method: str, path: str, body: bytes) -> list:
        """Send to every replica that is up (``/config``); their answers, in order."""
        ups = [p for p, u in zip(self.pools, self.up) if u]
        return await asyncio.gather(*(p.request(method, path, body, "application/json")
                                      for p in ups), return_exceptions=True)

    async def _probe_loop(self, every_s: float = 0.5) -> None:
        while True:
            await asyncio.sleep(every_s)
            for k, pool in enumerate(self.pools):
                if not self.up[k]:
                    try:
                        r = await pool.request("GET", "/healthz", timeout_s=2.0)
                        self.up[k] = r.status_code == 200
                    except Exception:
                        pass

    def stats(self) -> dict:
        return {"routing": self.routing, "replicas": [
            {"url": b, "up": u, "outstanding": o, "sent": s, "failures": f, "spilled_429": p}
            for b, u, o, s, f, p in zip(self.backends, self.up, self.outstanding, self.sent,
                                        self.failures, self.spilled)]}

    async def start(self) -> None:
        self._probe = asyncio.create_task(self._probe_loop())

    async def close(self) -> None:
        if self._probe:
            self._probe.cancel()
        for pool in self.pools:
            await pool.close()


def make_router_app(router: Router):
    """A Starlette app: ``POST /embed``, ``POST /v1/embeddings``, ``GET /v1/models`` routed; ``GET|POST /config`` to all replicas;
    ``GET /router`` the router's counters; ``GET /healthz``."""
    from contextlib import asynccontextmanager

    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    async def relay(request, path: str):
        body = await request.body()
        t0 = time.perf_counter()
        resp = await router.forward(request.method, path, body,
                                    request.headers.get("content-type"))
        if resp is None:
            return JSONResponse({"error": "no replica is reachable; retry later"},
                                status_code=503, headers={"Retry-After": "1"})
        out = Response(resp.content, status_code=resp.status_code,
                       media_type=resp.headers.get("content-type"))
        out.headers["x-router-ms"] = f"{(time.perf_counter() - t0) * 1000.0:.3f}"
        return out

    async def embed(request):  # the lab's and TEI's /embed, OpenAI's /v1/…: relayed as is
        path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return await relay(request, path)

    async def config(request):
        if request.method == "GET":
            return await relay(request, "/config")
        answers = await router.broadcast("POST", "/config", await request.body())
        bad = [a for a in answers if isinstance(a, Exception) or a.status_code != 200]
        if bad:
            first = bad[0]
            msg = str(first) if isinstance(first, Exception) else first.json()
            return JSONResponse({"error": "a replica refused the config", "detail": msg},
                                status_code=422 if not isinstance(first, Exception) else 503)
        return JSONResponse(answers[0].json())

    async def stats(request):
        return JSONResponse(router.stats())

    async def healthz(request):
        up = sum(router.up)
        return JSONResponse({"status": "ok" if up else "down", "replicas_up": up,
                             "replicas": len(router.backends), "routing": router.routing},
                            status_code=200 if up else 503)

    @asynccontextmanager
    async def lifespan(app):
        await router.start()
        yield
        await router.close()

    routes = [Route("/embed", embed, methods=["POST"]),
              Route("/v1/embeddings", embed, methods=["POST"]),
              Route("/v1/models", embed, methods=["GET"]),
              Route("/v1/models/{name:path}", embed, methods=["GET"]),
              Route("/config", config, methods=["GET", "POST"]),
              Route("/router", stats), Route("/healthz", healthz)]
    return Starlette(routes=routes, lifespan=lifespan)

