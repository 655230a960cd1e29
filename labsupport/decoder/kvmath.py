"""KV-cache arithmetic: bytes per token and how many tokens fit on a GPU (vLLM's
``gpu_memory_utilization`` rule). Sizes in bytes; configs use Hugging Face's key names.

KV bytes per token = 2 (K and V) × layers × KV heads × head_dim × bytes per value. With
grouped-query attention (GQA) several query heads share one KV head, so ``num_key_value_heads``
counts, not ``num_attention_heads``.
"""
from __future__ import annotations

from ..validate import check_float, check_int

GIB = 1024 ** 3

# Meta Llama 3 8B, as published in its config.json (bf16 weights, 8.03 B parameters).
LLAMA3_8B = dict(num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                 hidden_size=4096, head_dim=128, dtype_bytes=2, params=8.03e9)


def head_dim(config: dict) -> int:
    """``head_dim`` when the config gives it, else ``hidden_size // num_attention_heads``."""
    if config.get("head_dim"):
        return check_int("head_dim", config["head_dim"], 1)
    return check_int("hidden_size", config["hidden_size"], 1) // check_int(
        "num_attention_heads", config["num_attention_heads"], 1)


def kv_bytes_per_token(config: dict) -> int:
    """Bytes of K and V one token occupies in the cache, over all layers."""
    layers = check_int("num_hidden_layers", config["num_hidden_layers"], 1)
    kv_heads = config.get("num_key_value_heads") or config["num_attention_heads"]
    check_int("num_key_value_heads", kv_heads, 1)
    return 2 * layers * kv_heads * head_dim(config) * check_int(
        "dtype_bytes", config.get("dtype_bytes", 2), 1)


def kv_budget_tokens(config: dict, gpu_bytes: float, weight_bytes: float,
                     gpu_memory_utilization: float = 0.9) -> int:
    """Tokens of KV that fit once the weights are loaded: vLLM lets the engine use
    ``gpu_memory_utilization × gpu_bytes`` in all; the weights come out of that share and
    the rest is KV cache (activations and CUDA graphs ignored here). 0 if nothing is left."""
    check_float("gpu_bytes", gpu_bytes, 0.0, lo_open=True)
    check_float("weight_bytes", weight_bytes, 0.0)
    check_float("gpu_memory_utilization", gpu_memory_utilization, 0.0, 1.0)
    free = gpu_memory_utilization * gpu_bytes - weight_bytes
    return max(0, int(free // kv_bytes_per_token(config)))


def model_config(model) -> dict:
    """The keys above from a ``transformers`` model (GPT-2 names are mapped too)."""
    c = model.config
    get = lambda *names: next((getattr(c, n) for n in names if getattr(c, n, None)), None)  # noqa: E731
    return dict(num_hidden_layers=get("num_hidden_layers", "n_layer"),
                num_attention_heads=get("num_attention_heads", "n_head"),
                num_key_value_heads=get("num_key_value_heads", "num_attention_heads", "n_head"),
                hidden_size=get("hidden_size", "n_embd"), head_dim=get("head_dim"),
                dtype_bytes=next(model.parameters()).element_size(),
                params=sum(p.numel() for p in model.parameters()))
