"""Cost models: how long one batch takes (``ServiceModel``: fixed + per item + per padded
token), the one least-squares fit behind every cost model (``linear_fit``; the decoder's
``StepCost`` uses it too), and ``fake_model``, a stand-in model that takes that long."""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, fields
from typing import Any, Callable, Sequence

import numpy as np

from .validate import check_float


@dataclass(frozen=True)
class ServiceModel:
    """Batch service time in ms = ``fixed_ms + per_item_ms·n + per_token_ms·padded_tokens``.

    Defaults are the lab's toy model (5 ms launch + 0.2 ms per item), the one the
    ``bench batcher`` sleeps for."""
    fixed_ms: float = 5.0
    per_item_ms: float = 0.2
    per_token_ms: float = 0.0

    def __post_init__(self):
        for name in ("fixed_ms", "per_item_ms", "per_token_ms"):
            check_float(name, getattr(self, name), 0.0)
        if self.fixed_ms + self.per_item_ms + self.per_token_ms <= 0:
            raise ValueError("ServiceModel needs some cost: fixed_ms, per_item_ms or "
                             "per_token_ms must be > 0")

    def cost(self, n: int, padded_tokens: int = 0) -> float:
        """Milliseconds for a batch of ``n`` items holding ``padded_tokens`` tokens."""
        return self.fixed_ms + self.per_item_ms * n + self.per_token_ms * padded_tokens

    def capacity(self, n: int, padded_tokens: int = 0) -> float:
        """Requests per second when every batch holds ``n`` items (the ideal at saturation)."""
        return 1000.0 * n / self.cost(n, padded_tokens)

    @classmethod
    def fit(cls, sizes, padded_tokens, times_ms, *, relative: bool = False) -> "ServiceModel":
        """Least-squares fit (``linear_fit``) to measured batch timings (ms); ``relative``
        weighs each batch's error by its own time (a 10 ms batch counts as much as a 2 s one)."""
        n, tok, y = (np.asarray(a, float) for a in (sizes, padded_tokens, times_ms))
        if not (len(n) == len(tok) == len(y)) or len(y) < 3:
            raise ValueError("fit needs >= 3 timings and equal-length sizes, padded_tokens, "
                             "times_ms")
        return cls(*linear_fit([n, tok], y, relative=relative))


def linear_fit(columns: Sequence[Sequence[float]], y, *, robust: bool = True,
               min_rows: int = 3, relative: bool = False) -> tuple[float, ...]:
    """``y ≈ c0 + c1·x1 + c2·x2 + …`` by least squares, coefficients clipped at 0 (a cost is
    never negative); a column that never varies gets 0 (it cannot be told from ``c0``).
    ``robust``: rows far slower than the fit (the process was descheduled on a shared
    machine) are dropped and the fit repeated, so a few stalls do not skew it.
    ``relative``: minimise errors relative to each ``y`` (all ``y`` must be > 0)."""
    y = np.asarray(y, float)
    X = np.column_stack([np.ones_like(y)] + [np.asarray(c, float) for c in columns])
    if len(y) < min_rows or X.shape[0] != len(y):
        raise ValueError(f"a cost fit needs >= {min_rows} timings, one per row of inputs; "
                         f"got {len(y)}")
    if relative and not np.all(y > 0):
        raise ValueError("a relative cost fit needs every timing > 0")
    w = 1.0 / y if relative else np.ones_like(y)
    use = np.array([True] + [bool(np.ptp(X[:, j]) > 0) for j in range(1, X.shape[1])])
    keep = np.ones(len(y), bool)
    coef = np.zeros(X.shape[1])
    for _ in range(3 if robust else 1):
        A = X[keep][:, use] * w[keep, None]
        coef[use] = np.maximum(np.linalg.lstsq(A, y[keep] * w[keep], rcond=None)[0], 0.0)
        res = (y - X @ coef) * w
        mad = np.median(np.abs(res[keep] - np.median(res[keep]))) + 1e-9
        keep = res <= np.median(res[keep]) + 4 * 1.4826 * mad
        if keep.sum() < min_rows:
            break
    return tuple(float(c) for c in coef)


# The lessons' MiniLM-like CPU model in round numbers (ms): 8 ms per batch + 2.8 ms per
# sentence; capacity ~92 req/s one at a time, ~780 req/s in batches of 8. Notebooks 01 and
# 02 simulate with it (ex01's checks, the explorer); the fitted model of the shipped
# encoder is ``notebook.claims.SHIPPED_MINILM_CPU``.
MINILM_LIKE_CPU = ServiceModel(8.0, 2.8)


_COST_HELP = {"fixed_ms": "ms per batch", "per_item_ms": "ms per item",
              "per_token_ms": "ms per padded token"}


def add_cost_arguments(parser, defaults: ServiceModel | None = None, prefix: str = "") -> None:
    """One flag per ``ServiceModel`` field (``--<prefix>fixed-ms`` …), defaults from
    ``defaults``; read back with ``cost_from_arguments``."""
    d = defaults or ServiceModel()
    for f in fields(ServiceModel):
        parser.add_argument(f"--{prefix}{f.name}".replace("_", "-"), type=float,
                            default=getattr(d, f.name), help=_COST_HELP[f.name])


def cost_from_arguments(args, prefix: str = "") -> ServiceModel:
    """The ``ServiceModel`` of parsed ``add_cost_arguments`` flags."""
    return ServiceModel(**{f.name: getattr(args, (prefix + f.name).replace("-", "_"))
                           for f in fields(ServiceModel)})


def cost_argv(model: ServiceModel, prefix: str = "") -> list[str]:
    """``model`` as the flags of ``add_cost_arguments`` (for a child's command line)."""
    return [x for f in fields(ServiceModel)
            for x in (f"--{prefix}{f.name}".replace("_", "-"), str(getattr(model, f.name)))]


SPIN_MS = 0.2  # the end of a fake model's time spun, not slept (sleep overshoots ~0.1 ms)


def fake_model(cost: ServiceModel | None = None, outputs: Callable[[list], Any] | None = None,
               *, length: Callable[[Any], int] | None = None, asynchronous: bool = False,
               spin_ms: float = SPIN_MS) -> Callable:
    """A stand-in model for a batcher: a call on ``n`` items takes ``cost.cost(n, padded)``
    ms (padded = n × the longest ``length(item)``; 0 without ``length``) and returns
    ``outputs(items)`` (default: the items). ``asynchronous``: an ``async`` function that
    awaits ``asyncio.sleep`` (on a virtual clock, time jumps); else it computes the outputs
    within that time (not on top of it), sleeps its thread for the rest and spins the last
    ``spin_ms`` (``SPIN_MS``: a plain sleep overshoots by ~0.1 ms)."""
    cost = cost or ServiceModel()

    def ms(items: list) -> float:
        padded = len(items) * max(map(length, items)) if length and items else 0
        return cost.cost(len(items), padded)

    def result(items: list):
        return list(items) if outputs is None else outputs(items)

    if asynchronous:
        async def infer(items: list):
            await asyncio.sleep(ms(items) / 1000.0)
            return result(items)
    else:
        def infer(items: list):
            end = time.perf_counter() + ms(items) / 1000.0
            try:
                out, err = result(items), None  # within the modelled time, not on top
            except Exception as exc:
                out, err = None, exc
            time.sleep(max(0.0, end - time.perf_counter() - spin_ms / 1000.0))
            while time.perf_counter() < end:
                pass
            if err is not None:
                raise err
            return out
    infer.__name__ = getattr(outputs, "__name__", "fake_model")
    return infer
