"""What the KV cache saves, measured: greedy decoding of one prompt with the cache (each step
feeds only the newest token and reads the cached keys and values) and without it (each step
feeds the whole sequence so far, recomputing every earlier token's K/V).

Both run the same ``transformers`` model, so the cache is the only difference: the tokens
must come out the same, and only the step times differ. Times are ms by the lab's one timer
(``labsupport.device.clock``): CPU time of this thread on a one-thread CPU (steadier on a
shared machine), wall time after a CUDA sync on a GPU.
"""
from __future__ import annotations

from ..device import clock
from ..validate import check_int


def decode_steps(model, prompt: list[int], new_tokens: int, *, use_cache: bool) -> dict:
    """Greedy-decode ``new_tokens`` tokens after ``prompt``; returns ``{"tokens": [...],
    "positions": [...], "ms": [...]}``, one entry per decode step after the first token:
    ``positions[i]`` = position of the token that step fed (the sequence held that many
    tokens before it)."""
    import torch
    check_int("new_tokens", new_tokens, 2)
    if not prompt:
        raise ValueError("prompt must hold at least 1 token")
    limit = model.config.n_positions if hasattr(model.config, "n_positions") else None
    if limit is not None and len(prompt) + new_tokens > limit:
        raise ValueError(f"prompt ({len(prompt)}) + new_tokens ({new_tokens}) exceeds the "
                         f"model's n_positions={limit}")
    device = next(model.parameters()).device
    now = clock(device)
    ids = torch.tensor([prompt], device=device)
    out: dict[str, list] = {"tokens": [], "positions": [], "ms": []}
    with torch.inference_mode():
        res = model(ids, use_cache=use_cache)           # the prefill (not timed)
        cache = res.cache if use_cache else None
        nxt = res.logits[:, -1].argmax(-1, keepdim=True)
        out["tokens"].append(int(nxt))
        for _ in range(new_tokens - 1):
            ids = torch.cat([ids, nxt], dim=1)
            t0 = now()
            if use_cache:
                res = model(nxt, cache=cache, use_cache=True)
                cache = res.cache
            else:
                res = model(ids, use_cache=False)      # the whole sequence, again
            nxt = res.logits[:, -1].argmax(-1, keepdim=True)
            out["ms"].append((now() - t0) * 1000.0)
            out["positions"].append(ids.shape[1] - 1)
            out["tokens"].append(int(nxt))
    return out
