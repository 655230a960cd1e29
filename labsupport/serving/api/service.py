"""One embedding service: the model behind the service's single ``MicroBatcher``, its
metrics, per-request limits and the live knobs (``GET|POST /config``). The HTTP app
(``app.py``) and every API (``tei_api``, ``openai_api``) wrap this object."""
from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from ...batching.config import BatchConfig, knob_names
from ...batching.runtime import MicroBatcher
from .embed_core import BadInput
from .stats import ServiceMetrics


@dataclass
class RequestLimits:
    """Per-request input limits (checked before anything is queued)."""
    max_items: int = 64            # texts per request; bigger lists should be split by the client
    max_body_bytes: int = 1 << 20  # 1 MiB: far above 64 texts of 256 tokens


def parse_config(body: bytes) -> dict[str, Any]:
    """A ``/config`` body as knobs (names of ``BatchConfig``'s fields; their values are
    checked by ``BatchConfig`` when applied)."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadInput(f"body must be JSON like {{\"max_batch\": 16}}: {exc}", 400) from None
    names = list(knob_names())
    if not isinstance(data, dict) or not data:
        raise BadInput(f"body must be a JSON object with one or more of {names}")
    extra = set(data) - set(names)
    if extra:
        raise BadInput(f"unknown knob(s) {sorted(extra)}; allowed: {names}")
    return data


class EmbeddingService:
    """The model behind a ``MicroBatcher`` run by ``cfg`` (its policy, SLO and edges
    included), plus metrics; the FastAPI app wraps this."""

    def __init__(self, model, cfg: BatchConfig | None = None, limits: RequestLimits | None = None):
        self.model, self.limits = model, limits or RequestLimits()
        self.metrics = ServiceMetrics()
        self.in_flight = 0  # accepted embed requests not answered yet
        self.batcher = MicroBatcher(self._infer, cfg or BatchConfig())

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
        """The running ``BatchConfig`` as JSON values (``GET /config``)."""
        return self.batcher.cfg.to_dict()

    def reconfigure(self, knobs: dict[str, Any]) -> dict[str, Any]:
        """Apply ``knobs`` (any ``BatchConfig`` field) live; ``BadInput`` names a bad one."""
        try:
            self.batcher.reconfigure(**knobs)  # BatchConfig validates before changing
        except (ValueError, TypeError) as exc:
            raise BadInput(str(exc)) from None
        self.metrics.config_changed()
        return self.config()

    async def embed(self, items: list[tuple[str, int]]) -> list:
        """Queue every text (one future each, no task); all or nothing: a full queue
        rejects the whole request."""
        await self.batcher.start()
        self.batcher.admit(len(items))
        now = time.perf_counter()
        futs = [self.batcher.enqueue((t, n, now), length=n) for t, n in items]
        self.in_flight += 1
        try:
            return [await futs[0]] if len(futs) == 1 else await asyncio.gather(*futs)
        except BaseException:
            for f in futs:  # the request failed as a whole: drop its other texts
                f.cancel()
            raise
        finally:
            self.in_flight -= 1
