import math


def crossover_batch(params, dtype_bytes, bandwidth, flops, kv_bytes_per_token=0.0, context=0):
    """Smallest batch at which a decode step is compute-bound (None: never)."""
    weights_s = params * dtype_bytes / bandwidth            # memory time of the weights
    per_seq_s = 2 * params / flops  # bug: KV reads cost memory time too
    if per_seq_s <= 0:
        return None
    return max(1, math.ceil(weights_s / per_seq_s))
