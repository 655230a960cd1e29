"""labsupport: the Dynamic Batching Lab's engine, in layers that import only downwards
(the one list of layers is the picture in docs/architecture.md, enforced by
tests/layout/test_layers.py). Grading is the trainers' own package, ``labgrader``,
never installed by students.

The public API is imported here (``import labsupport`` loads numpy, never torch: the
encoder imports torch when it loads a model).
"""
from .batching.adaptive import Adaptive
from .batching.bucketed import Bucketed
from .batching.config import BatchConfig
from .batching.policies import Dispatch, Policy, Wait
from .batching.registry import POLICIES, make_policy
from .batching.runtime import BatcherClosed, BatchSizeMismatch, MicroBatcher, QueueFull
from .costs import ServiceModel
from .device import get_device
from .encoder import Encoder, load_encoder
from .metrics import find_knee, percentiles, summarize
from .paths import autograde_mode
from .sim import SimResult, simulate
from .traffic import ClosedLoop, Request, Trace, bursty, load_trace, poisson, replay

__version__ = "0.3.0.dev0"  # the one place: pyproject.toml reads it (tool.setuptools.dynamic)

__all__ = ["Adaptive", "BatchConfig", "BatchSizeMismatch", "BatcherClosed", "Bucketed",
           "ClosedLoop", "Dispatch", "Encoder", "MicroBatcher", "POLICIES", "Policy",
           "QueueFull", "Request", "ServiceModel", "SimResult", "Trace", "Wait",
           "autograde_mode", "bursty", "find_knee", "get_device", "load_encoder", "load_trace",
           "make_policy", "percentiles", "poisson", "replay", "simulate", "summarize"]
