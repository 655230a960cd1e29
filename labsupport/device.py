"""The one place that decides where models run: ``LAB_DEVICE`` if set, else CUDA when
present, else CPU. Timings on CUDA must synchronise (``sync``)."""
from __future__ import annotations

import os
import time
from contextlib import contextmanager


def get_device(prefer: str | None = None):
    """A ``torch.device``: ``prefer`` or ``$LAB_DEVICE`` (``cpu``/``cuda``), else auto."""
    import torch
    want = prefer or os.environ.get("LAB_DEVICE", "auto")
    if want == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if want.startswith("cuda") and not torch.cuda.is_available():
        raise RuntimeError(f"device {want!r} asked for, but CUDA is not available here; "
                           "use LAB_DEVICE=cpu or auto")
    if not (want == "cpu" or want.startswith("cuda")):
        raise ValueError(f"LAB_DEVICE must be one of auto, cpu, cuda[:N]; got {want!r}")
    return torch.device(want)


def sync(device) -> None:
    """Wait for queued GPU work (no-op on CPU), so a timer measures the work itself."""
    import torch
    if getattr(device, "type", str(device)).startswith("cuda"):
        torch.cuda.synchronize(device)


@contextmanager
def sync_timer(device, out: list):
    """``with sync_timer(dev, times): …`` appends the block's synchronised wall time in ms."""
    sync(device)
    t0 = time.perf_counter()
    yield
    sync(device)
    out.append((time.perf_counter() - t0) * 1000.0)

