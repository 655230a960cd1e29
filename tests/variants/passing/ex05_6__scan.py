def crossover_batch(params, dtype_bytes, bandwidth, flops, kv_bytes_per_token=0.0, context=0):
    """Another correct answer: try batch sizes until compute time catches up."""
    if 2 * params / flops <= context * kv_bytes_per_token / bandwidth:
        return None
    b = 1
    while 2 * params * b / flops < (params * dtype_bytes + b * context * kv_bytes_per_token) / bandwidth:
        b += 1
    return b
