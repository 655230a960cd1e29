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
        k = np.arange(1, self.dim + 1)
        self._freq, self._phase = 0.618034 * k, 1.3 * k * k  # distinct texts, distinct vectors
        self._model = fake_model(self.cost, self._vectors, length=self.count_tokens)

    def count_tokens(self, text: str) -> int:
        return len(text.split()) + 2

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._model(texts)

    def _vectors(self, texts: list[str]) -> np.ndarray:
        """One unit vector per text, a function of the text alone (a hash of its bytes
        spread over ``dim`` sines): a few µs per batch, where a seeded generator per text
        took ~13 µs per text."""
        seeds = np.array([sum(t.encode()) + 7 * len(t) for t in texts], dtype=float)
        vecs = np.sin(np.outer(seeds, self._freq) + self._phase)
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
