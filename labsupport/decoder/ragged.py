"""The ragged batch of one step: every token the step feeds, packed into one row.

A continuous-batching step mixes decode rows (one new token each) with prefill chunks (many
new tokens). Instead of padding them to one rectangle, the engine packs all new tokens
back to back (``StepLayout``): each token carries its own position and the KV-cache slot
its key and value go to (``kvcache.slot_mapping``), and attention must keep every token
inside its own sequence. As a mask over the packed queries and each sequence's keys
(cached ones first, then the new ones) that is block-diagonal, and causal within a block:
``packed_mask``. ``padded_mask`` is the same step as a padded batch (one row per sequence,
padded to the longest chunk and the longest context), for comparison.

The model runner feeds exactly ``layout(plan, kv)``; ``Engine(record_layout=True)`` keeps
it per step, so a picture or a check reads the engine's real step. Pure Python + numpy.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .kvcache import BlockManager, slot_mapping
from .scheduler import StepPlan


@dataclass(frozen=True)
class StepLayout:
    """One step's packed tokens. Per token: ``ids``, ``positions`` (in its own sequence),
    ``slots`` (where its K/V is written). Per sequence, in plan order: ``rows`` = (first
    packed index, tokens fed, tokens cached before the step, the block table it reads),
    ``last`` = packed index of its last token (whose logits give the next token)."""
    ids: list[int]
    positions: list[int]
    slots: list[int]
    rows: list[tuple[int, int, int, list[int]]]
    last: list[int]

    @property
    def spans(self) -> list[tuple[int, int]]:
        """(cached, new) tokens per sequence: all a mask needs."""
        return [(cached, n) for _, n, cached, _ in self.rows]


def layout(plan: StepPlan, kv: BlockManager, max_positions: int | None = None) -> StepLayout:
    """The packed tokens of ``plan``. A padding row (a finished member of a static batch)
    feeds its last token again at its last position; its K/V goes to the scratch slot
    ``kv.num_blocks × kv.block_size``, which nobody reads."""
    ids, pos, slots, rows, last = [], [], [], [], []
    scratch, bs = kv.num_blocks * kv.block_size, kv.block_size
    for seq, n, pad in zip(plan.seqs, plan.num_new, plan.pad):
        start = seq.num_cached
        if pad:
            ids.append(seq.output[-1])
            pos.append(start if max_positions is None else min(start, max_positions - 1))
            slots.append(scratch)
            rows.append((len(ids) - 1, 1, start - 1, seq.block_table[:kv.blocks_for(start)]))
        else:
            if max_positions is not None and start + n > max_positions:
                raise ValueError(f"sequence {seq.id} reaches {start + n} tokens, more than "
                                 f"the model's n_positions={max_positions}")
            ids += seq.token_slice(start, start + n)
            pos += range(start, start + n)
            slots += slot_mapping(seq.block_table, bs, start, start + n)
            rows.append((len(ids) - n, n, start, seq.block_table[:kv.blocks_for(start + n)]))
        last.append(len(ids) - 1)
    return StepLayout(ids, pos, slots, rows, last)


def _check_spans(spans) -> list[tuple[int, int]]:
    out = []
    for i, span in enumerate(spans):
        cached, new = (int(x) for x in span)
        if cached < 0 or new < 1:
            raise ValueError(f"spans[{i}] = {span}: need cached >= 0 and new >= 1")
        out.append((cached, new))
    return out


def packed_mask(spans) -> np.ndarray:
    """``[Σ new, Σ (cached + new)]`` bool: may packed query ``q`` attend to key ``k``?
    Queries are the new tokens, sequence after sequence; keys are each sequence's whole
    context in order (its cached tokens, then its new ones). True only inside the query's
    own sequence, at key positions up to its own (causal)."""
    spans = _check_spans(spans)
    n_q = sum(n for _, n in spans)
    n_k = sum(c + n for c, n in spans)
    mask = np.zeros((n_q, n_k), dtype=bool)
    q0 = k0 = 0
    for cached, new in spans:
        for i in range(new):
            mask[q0 + i, k0:k0 + cached + i + 1] = True
        q0, k0 = q0 + new, k0 + cached + new
    return mask


def padded_mask(spans) -> np.ndarray:
    """``[B, Q, T]`` bool: the same step as a padded batch, row ``b`` holding sequence
    ``b``'s new tokens (padded to the longest chunk, ``Q``) against its context (padded to
    the longest, ``T``). Padding cells are False: computed, then thrown away."""
    spans = _check_spans(spans)
    Q = max((n for _, n in spans), default=0)
    T = max((c + n for c, n in spans), default=0)
    mask = np.zeros((len(spans), Q, T), dtype=bool)
    for b, (cached, new) in enumerate(spans):
        for i in range(new):
            mask[b, i, :cached + i + 1] = True
    return mask


def block_cells(spans) -> int:
    """Cells a ragged attention kernel computes: each sequence's new tokens against its own
    context, ``Σ new × (cached + new)`` (the boxes of ``packed_mask``; the rest is never
    formed)."""
    return sum(n * (c + n) for c, n in _check_spans(spans))


def plot_masks(spans, axes=None, title: str = ""):
    """The packed mask beside the padded one (its rows stacked, sequence by sequence), with
    how many cells each computes and how many of them are used."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    spans = _check_spans(spans)
    packed, padded = packed_mask(spans), padded_mask(spans)
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(11, 3.8),
                               gridspec_kw={"width_ratios": [packed.shape[1], padded.shape[2]]})
    cmap = ListedColormap(["white", "tab:blue"])
    a1, a2 = axes
    a1.imshow(packed, cmap=cmap, aspect="auto", interpolation="nearest")
    q0 = k0 = 0
    for cached, new in spans:   # outline each sequence's block, shade its cached columns
        a1.add_patch(plt.Rectangle((k0 - 0.5, q0 - 0.5), cached + new, new, fill=False, lw=1))
        if cached:
            a1.axvspan(k0 - 0.5, k0 + cached - 0.5, ymin=0, ymax=1, color="tab:orange",
                       alpha=0.12, lw=0)
        q0, k0 = q0 + new, k0 + cached + new
    a1.set(xlabel="keys: each sequence's cached tokens (shaded), then its new ones",
           ylabel="packed queries (new tokens)",
           title=f"packed: {packed.sum()} cells attend; a ragged kernel computes only the "
                 f"boxes ({block_cells(spans)} cells)")
    B, Q, T = padded.shape
    a2.imshow(padded.reshape(B * Q, T), cmap=cmap, aspect="auto", interpolation="nearest")
    for b in range(1, B):
        a2.axhline(b * Q - 0.5, color="k", lw=0.6)
    a2.set(xlabel="key position (padded to the longest context)",
           ylabel=f"{B} rows × {Q} query slots",
           title=f"padded: {padded.sum()} of {padded.size} computed cells attend")
    if title:
        plt.suptitle(title)
    return axes
