"""The one place that decides where models run: ``LAB_DEVICE`` if set, else CUDA when
present, else CPU; and the one timer of a model's work on it (``clock``, ``sync_timer``):
timings on CUDA synchronise (``sync``), timings on a CPU count this thread's CPU time."""
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


def clock(device):
    """The clock (seconds) that times a model's work on ``device``: wall time after a sync on
    CUDA; on a CPU the CPU time of the calling thread when torch runs one thread (all the
    work is then in this thread, and time other programs take from the core is not
    counted: steady on a busy machine), else wall time (torch's other threads work too)."""
    import torch
    if getattr(device, "type", str(device)).startswith("cuda"):
        def synced() -> float:
            torch.cuda.synchronize(device)
            return time.perf_counter()
        return synced
    return time.thread_time if torch.get_num_threads() == 1 else time.perf_counter


@contextmanager
def sync_timer(device, out: list):
    """``with sync_timer(dev, times): …`` appends the block's time in ms by ``clock(dev)``
    (synchronised wall time on CUDA; this thread's CPU time on a one-thread CPU)."""
    now = clock(device)
    t0 = now()
    yield
    out.append((now() - t0) * 1000.0)

