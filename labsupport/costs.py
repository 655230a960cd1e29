"""How long one batch takes: fixed + per-item + per-padded-token cost, fitted from timings."""
from __future__ import annotations

from dataclasses import dataclass

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
    def fit(cls, sizes, padded_tokens, times_ms) -> "ServiceModel":
        """Least-squares fit (coefficients clipped at 0) to measured batch timings."""
        n = np.asarray(sizes, float)
        tok = np.asarray(padded_tokens, float)
        y = np.asarray(times_ms, float)
        if not (len(n) == len(tok) == len(y)) or len(y) < 3:
            raise ValueError("fit needs >= 3 timings and equal-length sizes, padded_tokens, "
                             "times_ms")
        cols = [np.ones_like(n), n, tok]
        keep = [True, True, bool(np.ptp(tok) > 0)]
        A = np.stack([c for c, k in zip(cols, keep) if k], axis=1)
        coef = np.maximum(np.linalg.lstsq(A, y, rcond=None)[0], 0.0)
        full = iter(coef)
        vals = [float(next(full)) if k else 0.0 for k in keep]
        return cls(*vals)
