# honest: crossover_batch from the two step times, memory = weights read once, compute per sequence
# target: ex05_6
import math


def crossover_batch(params, dtype_bytes, bandwidth, flops, kv_bytes_per_token=0.0, context=0):
    """Smallest batch at which a decode step is compute-bound (None: never)."""
    weight_read = params * dtype_bytes / bandwidth
    compute_each = 2 * params / flops
    kv_each = kv_bytes_per_token * context / bandwidth
    gain = compute_each - kv_each
    if gain <= 0:
        return None
    b = math.ceil(weight_read / gain)
    return b if b >= 1 else 1
