"""The roofline model of one decode step: a step reads every weight once (memory time) and
does ``2 × params`` FLOPs per sequence in the batch (compute time); it lasts as long as the
slower of the two. KV reads add to the memory time: each sequence reads its context's K/V.

    step_s(B) = max((weight_bytes + B × context × kv_bytes_per_token) / bandwidth,
                    2 × params × B / flops)

While memory time wins, a bigger batch costs (almost) nothing extra: decode is bound by
memory bandwidth, and batching is how it pays. A prefill of ``P`` prompt tokens is the same
formula with ``batch = P`` rows: past the crossover it is compute-bound. Published peak
figures (dense BF16, SXM boards; NVIDIA's H100 and H200 Tensor Core GPU datasheets print
twice the dense FLOPS, with structured sparsity) are in ``GPUS``.
"""
from __future__ import annotations

import math

from ..validate import check_float, check_int
from .kvmath import GIB

GPUS = {  # name: (memory bandwidth bytes/s, dense BF16 FLOP/s, memory bytes)
    "H100 SXM": (3.35e12, 989e12, 80 * GIB),    # "80GB" of HBM3 is 80 GiB = 85.9e9 bytes
    "H200 SXM": (4.8e12, 989e12, 141 * GIB),    # "141GB" of HBM3e, in the same binary units
}


def step_s(batch: int, params: float, dtype_bytes: int, bandwidth: float, flops: float,
           kv_bytes_per_token: float = 0.0, context: int = 0) -> float:
    """Seconds of one decode step of ``batch`` sequences of ``context`` tokens each."""
    check_int("batch", batch, 1)
    memory = (params * dtype_bytes + batch * context * kv_bytes_per_token) / bandwidth
    return max(memory, 2.0 * params * batch / flops)


def pass_ms(params: float, gpu: str = "H100 SXM", dtype_bytes: int = 2) -> tuple[float, float]:
    """The roofline's two terms of one forward pass on ``gpu`` (a key of ``GPUS``), in ms:
    reading the ``params`` weights once (``dtype_bytes`` each; the fixed cost of a pass) and
    ``2 × params`` FLOPs per token fed (the cost per token). Decode steps
    (``stepsim.StepCost.from_roofline``) and encoder passes (``encoder.model.roofline_cost``)
    are both built from them."""
    if gpu not in GPUS:
        raise ValueError(f"gpu must be one of {sorted(GPUS)}, got {gpu!r}")
    check_float("params", params, 0.0, lo_open=True)
    check_int("dtype_bytes", dtype_bytes, 1)
    bandwidth, flops, _ = GPUS[gpu]
    return 1e3 * params * dtype_bytes / bandwidth, 1e3 * 2.0 * params / flops


def crossover_batch(params: float, dtype_bytes: int, bandwidth: float, flops: float,
                    kv_bytes_per_token: float = 0.0, context: int = 0) -> int | None:
    """The smallest batch at which compute time reaches memory time (decode turns
    compute-bound); None if KV reads grow memory time as fast as compute (never)."""
    for name, v in (("params", params), ("bandwidth", bandwidth), ("flops", flops)):
        check_float(name, v, 0.0, lo_open=True)
    check_int("dtype_bytes", dtype_bytes, 1)
    check_int("context", context, 0)
    per_seq = 2.0 * params / flops - context * kv_bytes_per_token / bandwidth   # s per seq
    if per_seq <= 0:
        return None
    return max(1, math.ceil(params * dtype_bytes / bandwidth / per_seq))


def batch_gain(step_time, batches) -> list[float]:
    """Throughput gain of batch ``B`` over batch 1: ``B × step_time(1) / step_time(B)``
    (``step_time``: any function of the batch size, in any unit)."""
    t1 = step_time(1)
    return [b * t1 / step_time(b) for b in batches]
