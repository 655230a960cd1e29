"""labsupport: the Dynamic Batching Lab's engine, in layers that import only downwards
(the one list of layers is the picture in docs/architecture.md, enforced by
tests/layout/test_layers.py). Grading is the trainers' own package, ``labgrader``,
never installed by students.

Public API, imported lazily (``import labsupport`` stays fast and torch-free): the names in
``_API`` below.
"""
from importlib import import_module

from .paths import autograde_mode  # noqa: F401  (public: labsupport.autograde_mode())

__version__ = "0.3.0.dev0"  # the one place: pyproject.toml reads it (tool.setuptools.dynamic)

_API = {
    "Request": "traffic", "poisson": "traffic", "bursty": "traffic", "ClosedLoop": "traffic",
    "load_trace": "traffic", "replay": "traffic", "Trace": "traffic",
    "BatchConfig": "batching.config",
    "make_policy": "batching.registry", "POLICIES": "batching.registry",
    "Dispatch": "batching.policies", "Wait": "batching.policies",
    "Policy": "batching.policies", "Bucketed": "batching.bucketed",
    "Adaptive": "batching.adaptive",
    "load_encoder": "encoder", "Encoder": "encoder",
    "simulate": "sim", "SimResult": "sim", "ServiceModel": "costs",
    "MicroBatcher": "batching.runtime", "QueueFull": "batching.runtime",
    "BatcherClosed": "batching.runtime", "BatchSizeMismatch": "batching.runtime",
    "percentiles": "metrics", "summarize": "metrics", "find_knee": "metrics",
    "get_device": "device",
}

__all__ = sorted(_API)


def __getattr__(name):
    if name in _API:
        return getattr(import_module(f".{_API[name]}", __name__), name)
    raise AttributeError(f"module 'labsupport' has no attribute {name!r}")
