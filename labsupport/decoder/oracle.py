"""The token oracle: ``transformers``' own greedy ``generate``, one prompt at a time (no
batching, no paging, no scheduler). The engine must match it token for token, whatever it
batches, chunks, caches or preempts.

``stop_tokens`` gives requests stop tokens so that answers end at different points before
their cap, as real answers do: a small random model has no EOS habit of its own, so each
request's stop token is taken from its own free-running answer.
"""
from __future__ import annotations

from ..validate import check_int


def greedy_reference(model, prompts: list[list[int]], max_new_tokens: int,
                     eos_token_ids: list[int | None] | None = None) -> list[list[int]]:
    """Greedy answers of ``model.generate`` for each prompt, capped at ``max_new_tokens``
    and, where ``eos_token_ids[i]`` is not None, ended by that token (kept in the answer)."""
    import torch
    check_int("max_new_tokens", max_new_tokens, 1)
    eos = eos_token_ids if eos_token_ids is not None else [None] * len(prompts)
    if len(eos) != len(prompts):
        raise ValueError(f"eos_token_ids has {len(eos)} entries for {len(prompts)} prompts")
    device = next(model.parameters()).device
    out = []
    with torch.inference_mode():
        for p, e in zip(prompts, eos):
            ids = torch.tensor([p], device=device)
            extra = {} if e is None else {"eos_token_id": int(e)}
            gen = model.generate(ids, attention_mask=torch.ones_like(ids),
                                 max_new_tokens=max_new_tokens, do_sample=False,
                                 pad_token_id=0, **extra)
            out.append(gen[0, len(p):].tolist())
    return out


def stop_tokens(model, prompts: list[list[int]], cap: int) -> list[int | None]:
    """A stop token per prompt, from its free-running greedy answer of ``cap`` tokens, in
    turn: its first token (a one-token answer), the first token that differs from all
    before it (an answer that ends part-way; None if there is none), or None (it runs to
    the cap)."""
    free = greedy_reference(model, prompts, cap)
    stops = []
    for i, out in enumerate(free):
        new = [out[k] for k in range(1, len(out)) if out[k] not in out[:k]]
        stops.append([out[0], new[0] if new else None, None][i % 3])
    return stops
