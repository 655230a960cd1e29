# the lab's crossover_batch typed in without its argument checks (calls of the lab's own check_float / check_int a student leaves out) and its factor 2.0 written after params: Dice 0.81 as it is
# target: ex05_6
import math


def crossover_batch(params, dtype_bytes, bandwidth, flops, kv_bytes_per_token=0.0, context=0):
    """Smallest batch at which a decode step is compute-bound (None: never)."""
    per_seq = params * 2.0 / flops - context * kv_bytes_per_token / bandwidth   # s per seq
    if per_seq <= 0:
        return None
    return max(1, math.ceil(params * dtype_bytes / bandwidth / per_seq))
