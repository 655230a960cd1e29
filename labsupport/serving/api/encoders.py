"""The models the service can run: ``FakeEncoder`` (a ``ServiceModel``'s time per batch,
deterministic unit vectors; no model files) and the real MiniLM (``load_embedder``)."""
from __future__ import annotations

import numpy as np

from ...costs import ServiceModel, fake_model
from ...validate import check_choice, check_int


class FakeEncoder:
    """A stand-in encoder: sleeps ``cost(n, padded tokens)`` ms of a ``ServiceModel`` in the
    lab's one ``fake_model`` (default: the toy model, ``ServiceModel()``), returns
    deterministic unit vectors. Tokens are whitespace words + 2 (like [CLS] … [SEP])."""

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


def load_embedder(name: str, fake: ServiceModel | None = None):
    """``"fake"`` → ``FakeEncoder(fake)``; ``"minilm"`` → the real encoder (CUDA if any)."""
    check_choice("model", name, ("fake", "minilm"))
    if name == "fake":
        return FakeEncoder(fake)
    from ...encoder.model import load_encoder
    return load_encoder()


def model_name(model) -> str:
    return getattr(model, "name", None) or repr(model)
