"""A GPT-2 forward pass over one packed step, attention masked by any ragged mask: the
check that a mask (a student's ``ragged_mask``, ex06_9) really is the one the engine's step
needs. Every sequence of the step contributes its whole context (cached tokens, then the new
ones) to one row; the rows of the cached tokens attend causally inside their own sequence
(they stand for the K/V cache), the new tokens' rows attend as ``mask`` says; the logits at
each sequence's last token come out. With the block-diagonal causal mask they are the
logits the model gives each sequence alone (``alone_logits``).
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from .ragged import packed_mask


def full_mask(spans, mask) -> np.ndarray:
    """``[K, K]`` bool over the packed contexts (K = sum of cached + new): the cached rows
    causal inside their own sequence, the new rows from ``mask`` ([sum new, K])."""
    mask = np.asarray(mask, dtype=bool)
    k = sum(c + n for c, n in spans)
    want = (sum(n for _, n in spans), k)
    if mask.shape != want:
        raise ValueError(f"mask must have shape {want} for spans {spans}, got {mask.shape}")
    out = np.zeros((k, k), dtype=bool)
    start = q = 0
    for cached, new in spans:
        for i in range(cached):
            out[start + i, start:start + i + 1] = True
        out[start + cached:start + cached + new] = mask[q:q + new]
        start, q = start + cached + new, q + new
    return out


@torch.inference_mode()
def packed_logits(model, contexts: list[list[int]], spans, mask) -> torch.Tensor:
    """Logits [sequences, vocab] at each sequence's last token, from one forward pass over
    the packed ``contexts`` (each sequence's cached + new token ids) with ``mask`` on the new
    tokens' attention (SDPA; a query row that may see nothing gets zeros, not NaN)."""
    if [len(c) for c in contexts] != [c + n for c, n in spans]:
        raise ValueError("contexts must hold cached + new tokens of each span, in order")
    tm, cfg = model.transformer, model.config
    H, E = cfg.n_head, cfg.n_embd
    ids = torch.tensor([t for c in contexts for t in c])
    pos = torch.tensor([i for c in contexts for i in range(len(c))])
    allowed = torch.from_numpy(full_mask(spans, mask))
    bias = torch.zeros(allowed.shape).masked_fill_(~allowed, float("-inf"))
    seen = allowed.any(-1, keepdim=True)            # rows that may look at something
    h = tm.wte(ids) + tm.wpe(pos)
    for block in tm.h:
        q, k, v = block.attn.c_attn(block.ln_1(h)).split(E, dim=-1)
        q, k, v = (x.view(-1, H, E // H).transpose(0, 1) for x in (q, k, v))
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        o = torch.where(seen, o, torch.zeros_like(o))
        h = h + block.attn.c_proj(o.transpose(0, 1).reshape(-1, E))
        h = h + block.mlp(block.ln_2(h))
    last = torch.tensor(np.cumsum([len(c) for c in contexts]) - 1)
    return model.lm_head(tm.ln_f(h[last]))


@torch.inference_mode()
def alone_logits(model, contexts: list[list[int]]) -> torch.Tensor:
    """Each context through ``transformers``' own forward, one at a time: the logits at its
    last token [sequences, vocab] (what the engine computes for it)."""
    return torch.stack([model(input_ids=torch.tensor([c])).logits[0, -1] for c in contexts])

