"""The MiniLM sentence encoder (``model``) and the lab's text corpus (``corpus``)."""
from .model import DIM, Encoder, check_texts, load_encoder, model_path, sync

__all__ = ["DIM", "Encoder", "check_texts", "load_encoder", "model_path", "sync"]
