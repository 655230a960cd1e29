"""The model runner: a GPT-2-architecture decoder run over a paged KV cache.

The weights and layers are a ``transformers`` ``GPT2LMHeadModel`` (built from a seeded
config by ``tiny_gpt2``, or any local GPT-2 checkpoint via ``load_decoder``). Only the
attention is done here: each step packs every scheduled token into one ``[N, hidden]``
batch for the dense layers (Orca's *selective batching*; the packing is ``ragged.layout``),
writes the new K/V into the slots the ``BlockManager`` gave each sequence, and attends each
row to its own cached tokens. So every row sits at its own position, and rows join and
leave between steps. Greedy decoding: the next token is the argmax.

Decode rows (one new token each: most rows of most steps) read their keys and values where
the cache holds them, block by block, with no gathered copy of their context (two
``embedding_bag`` sums per layer, ``ModelRunner._attend``), as a paged-attention kernel
does; prefill chunks gather their blocks and call SDPA. The tokens match ``transformers``'
greedy ``generate`` (``decoder.oracle``; tests and ``bench decode`` check it), while the
floating-point sums run in other orders.
"""
from __future__ import annotations

import array
from itertools import chain
from typing import NamedTuple

import torch
import torch.nn.functional as F

from ..device import get_device
from .kvcache import BlockManager
from .ragged import layout
from .scheduler import StepPlan

TINY = dict(n_layer=2, n_embd=128, n_head=4, vocab_size=1000, n_positions=512)  # fast on CPU


def tiny_gpt2(seed: int = 0, **overrides):
    """A randomly initialised GPT-2 (``torch.manual_seed(seed)``); no download."""
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(**{**TINY, **overrides}, bos_token_id=None, eos_token_id=None,
                     pad_token_id=None)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return GPT2LMHeadModel(cfg).eval()


def load_decoder(path: str | None = None, seed: int = 0):
    """A local GPT-2 checkpoint at ``path`` (offline), or ``tiny_gpt2(seed)`` when None."""
    if path is None:
        return tiny_gpt2(seed)
    from transformers import GPT2LMHeadModel
    return GPT2LMHeadModel.from_pretrained(path, local_files_only=True).eval()


class AttnCall(NamedTuple):
    """Index tensors of one attention call over ``B`` rows × ``Q`` query slots, each row
    reading ``NB`` whole KV blocks (``T = NB × block_size`` key positions)."""
    q_idx: torch.Tensor           # [B·Q] packed index of each query slot (padding repeats
                                  # the row's last token)
    tables: torch.Tensor          # [B·NB] the blocks each row reads (padding: block 0)
    hidden: torch.Tensor          # [B, Q, T] bool: True where the query may not look (past
                                  # its own position, or padding)
    keep: torch.Tensor | None     # query slots that are real tokens (None: all of them)
    out_idx: torch.Tensor         # [kept] packed index of each kept query slot
    shape: tuple[int, int, int]   # (B, Q, NB)
    # decode calls only: the bags of ``embedding_bag`` (built once per step, every layer
    # reads them)
    key_rows: torch.Tensor | None = None   # [H·B·NB, D] per (head, row, block): the rows
                                           # (one per head dim) of that block's keys
    val_rows: torch.Tensor | None = None   # [H·B, T] per (head, row): the value row of
                                           # each key position


class ModelRunner:
    """Runs a ``StepPlan`` through the model; owns the K/V tensors (one pair per layer)."""

    def __init__(self, model=None, device=None):
        self.device = torch.device(device) if device is not None else get_device()
        self.model = (model if model is not None else tiny_gpt2()).to(self.device).eval()
        c = self.model.config
        self.heads, self.head_dim = c.n_head, c.n_embd // c.n_head
        self.max_positions = c.n_positions
        self.k: list[torch.Tensor] = []   # per layer: [blocks, heads, head_dim, block_size]
        self.v: list[torch.Tensor] = []   # per layer: [heads, rows, head_dim]
        self.cache_rows = 0

    def init_cache(self, kv: BlockManager) -> None:
        """Allocate ``num_blocks × block_size`` K and V rows (token slots) per layer.

        A decode row attends by two weighted sums read straight from the cache
        (``embedding_bag``: no gathered copy of its context): its scores over a block are a
        sum of the block's key *dimensions* weighted by the query, so keys are stored block
        by block transposed (``[blocks, heads, head_dim, block_size]``); its output is a sum
        of value *rows* weighted by the softmax, so values are stored per head
        (``[heads, rows, head_dim]``)."""
        # one extra block at the end: its first slot is the scratch slot of padding rows,
        # whose K/V nobody reads (a whole block keeps the blocked views contiguous)
        H, D, bs, nb = self.heads, self.head_dim, kv.block_size, kv.num_blocks + 1
        self.cache_rows = nb * bs
        n, dt, dev = self.model.config.n_layer, self.model.dtype, self.device
        self.k = [torch.zeros((nb, H, D, bs), dtype=dt, device=dev) for _ in range(n)]
        self.v = [torch.zeros((H, self.cache_rows, D), dtype=dt, device=dev) for _ in range(n)]
        self.k_rows = [t.view(-1, bs) for t in self.k]           # [blocks·H·D, bs]
        self.v_rows = [t.view(-1, D) for t in self.v]            # [H·rows, D]
        self.v_blocks = [t.view(H, nb, bs * D) for t in self.v]  # views, same storage
        # key positions of the longest block table a sequence can have (masks compare them)
        self._arange = torch.arange(max(kv.blocks_for(self.max_positions) * bs, D),
                                    device=dev)
        heads = torch.arange(H, device=dev).view(H, 1, 1, 1)
        self._key_base = heads * D + self._arange[:D]           # k_rows row of (block 0, h, d)
        self._val_base = heads * self.cache_rows + self._arange[:bs]   # v_rows row of (h, slot j)

    def _weights(self) -> list[tuple]:
        """Per layer: (ln_1 weight, bias, eps), c_attn W, b, c_proj W, b, (ln_2 ...), c_fc W,
        b, the activation, mlp.c_proj W, b (kept once; the model is not trained here).
        GPT-2's ``gelu_new`` is taken as PyTorch's tanh GELU: the same formula in one
        kernel instead of eight elementwise ops (``transformers`` offers it as
        ``gelu_pytorch_tanh``; it may round the last bit differently)."""
        if getattr(self, "_w", None) is None:
            from transformers.activations import NewGELUActivation
            ln = lambda m: (m.weight, m.bias, m.eps)  # noqa: E731
            act = lambda m: _gelu_tanh if isinstance(m, NewGELUActivation) else m  # noqa: E731
            self._w = [(ln(b.ln_1), b.attn.c_attn.weight, b.attn.c_attn.bias,
                        b.attn.c_proj.weight, b.attn.c_proj.bias, ln(b.ln_2),
                        b.mlp.c_fc.weight, b.mlp.c_fc.bias, act(b.mlp.act),
                        b.mlp.c_proj.weight, b.mlp.c_proj.bias) for b in self.model.transformer.h]
        return self._w

    def _meta(self, plan: StepPlan, kv: BlockManager):
        """The step's index tensors: token ids, positions, cache slots (the values' rows),
        where the new keys go (``k[block, :, :, offset]``), the attention calls
        (``AttnCall``) and the packed index of the last token of each sampling sequence.
        All the step's integers go to the device in one tensor, split into views."""
        lay = layout(plan, kv, self.max_positions)     # the packed step (``ragged``)
        # decode rows (1 query) and prefill chunks attend in separate calls, so one long
        # prompt does not pad every decode row to its length
        decode, prefill = [], []
        for r in lay.rows:
            (decode if r[1] == 1 else prefill).append(r)
        calls = [_call_ints(g) for g in _split_decode(decode)]
        if prefill:
            calls.append(_call_ints(prefill))
        last = [i for i, s in zip(lay.last, plan.sample) if s]
        bs = kv.block_size
        lists = [lay.ids, lay.positions, lay.slots, last, [x // bs for x in lay.slots],
                 [x % bs for x in lay.slots]]
        for c in calls:
            lists += c[:5] if c[3] is not None else c[:3]
        # array -> tensor: ~7x faster than torch.tensor(list), which inspects every item
        flat = torch.frombuffer(array.array("q", chain.from_iterable(lists)), dtype=torch.int64)
        parts = iter(flat.to(self.device).split([len(x) for x in lists]))
        ids, pos, slots, last, block, offset = (next(parts) for _ in range(6))
        out, H, D = [], self.heads, self.head_dim
        for *_, keep, _, (B, Q, NB) in calls:
            q_idx, q_pos, tables = next(parts), next(parts), next(parts)
            T = NB * bs
            hidden = self._arange[:T] > q_pos.view(B, Q, 1)
            if keep is None:   # decode: the bags of every (head, row, block / key position)
                tab = tables.view(1, B, NB, 1)
                out.append(AttnCall(
                    q_idx, tables, hidden, None, q_idx, (B, Q, NB),
                    torch.add(self._key_base, tab, alpha=H * D).view(-1, D),
                    torch.add(self._val_base, tab, alpha=bs).view(H * B, T)))
            else:
                keep, out_idx = next(parts), next(parts)
                out.append(AttnCall(q_idx, tables, hidden, keep, out_idx, (B, Q, NB)))
        return ids, pos, slots, (block, slice(None), slice(None), offset), out, last

    def _attend(self, q: torch.Tensor, layer: int, calls: list[AttnCall]) -> torch.Tensor:
        """Attention of the packed queries ``q`` [N, H, D] over each one's cached keys
        (written for this step already); [N, H, D] in packed order."""
        H, D = self.heads, self.head_dim
        o = torch.empty_like(q)
        q_h, o_h = q.transpose(0, 1), o.transpose(0, 1)             # [H, N, D] views
        for c in calls:
            B, Q, NB = c.shape
            if Q == 1:
                # decode rows, one query each. Scores: per (head, row, block) the query's
                # components weigh the block's key dimensions; output: the softmax weighs
                # the value rows. Both sums read the cache in place (padding weighs 0).
                qb = q_h.index_select(1, c.q_idx).mul_(D ** -0.5)         # [H, B, D]
                w = qb.view(H, B, 1, D).expand(H, B, NB, D).reshape(-1, D)
                s = F.embedding_bag(c.key_rows, self.k_rows[layer], mode="sum",
                                    per_sample_weights=w).view(H, B, -1)   # [H, B, T]
                p = torch.softmax(s.masked_fill_(c.hidden.view(1, B, -1), float("-inf")), -1)
                ob = F.embedding_bag(c.val_rows, self.v_rows[layer], mode="sum",
                                     per_sample_weights=p.view(H * B, -1)).view(H, B, D)
            else:
                # prefill chunks: the blocks gathered and SDPA with an additive float mask
                # (0 / -inf; its CPU kernel runs that faster than a bool one)
                T = NB * self.k[layer].shape[-1]
                qb = q_h.index_select(1, c.q_idx).view(H, B, Q, D).transpose(0, 1)
                kb = self.k[layer].index_select(0, c.tables).view(B, NB, H, D, -1) \
                    .permute(0, 2, 1, 4, 3).reshape(B, H, T, D)
                vb = self.v_blocks[layer].index_select(1, c.tables).view(H, B, T, D)
                mask = torch.zeros(c.hidden.shape, dtype=q.dtype, device=q.device
                                   ).masked_fill_(c.hidden, float("-inf"))
                ob = F.scaled_dot_product_attention(qb, kb, vb.transpose(0, 1),
                                                    attn_mask=mask[:, None])   # [B, H, Q, D]
                ob = ob.transpose(0, 1).reshape(H, B * Q, D)
                if c.keep is not None:                             # drop query padding
                    ob = ob.index_select(1, c.keep)
            o_h.index_copy_(1, c.out_idx, ob)                      # back to packed order
        return o

    @torch.inference_mode()
    def run(self, plan: StepPlan, kv: BlockManager) -> list[int | None]:
        """Feed the plan's tokens, fill the cache; the greedy next token of each sampling row."""
        ids, pos, slots, key_at, calls, last = self._meta(plan, kv)
        tm, H, D = self.model.transformer, self.heads, self.head_dim
        h = F.embedding(ids, tm.wte.weight) + F.embedding(pos, tm.wpe.weight)  # [N, E]
        N, E = h.shape
        # the blocks' own weights and ops, called directly (GPT-2's Conv1D is x @ W + b):
        # the modules' arithmetic (GELU fused, see ``_weights``) without their per-call
        # Python overhead
        for layer, (ln1, wqkv, bqkv, wo, bo, ln2, wfc, bfc, act, wpr, bpr) in enumerate(
                self._weights()):
            qkv = torch.addmm(bqkv, F.layer_norm(h, (E,), *ln1), wqkv)      # [N, 3E]
            self.k[layer][key_at] = qkv[:, E:2 * E].view(N, H, D)           # k[block, :, :, j]
            self.v[layer].index_copy_(1, slots, qkv[:, 2 * E:].view(N, H, D).transpose(0, 1))
            o = self._attend(qkv[:, :E].view(N, H, D), layer, calls)
            h = h + torch.addmm(bo, o.view(N, E), wo)
            h = h + torch.addmm(bpr, act(torch.addmm(bfc, F.layer_norm(h, (E,), *ln2), wfc)),
                                wpr)
        ln_f = tm.ln_f
        logits = F.linear(F.layer_norm(h.index_select(0, last), (E,), ln_f.weight, ln_f.bias,
                                       ln_f.eps), self.model.lm_head.weight,
                          self.model.lm_head.bias)
        nxt = iter(logits.argmax(-1).tolist())
        return [next(nxt) if s else None for s in plan.sample]


def _gelu_tanh(x: torch.Tensor) -> torch.Tensor:
    return F.gelu(x, approximate="tanh")


def _call_ints(rows) -> tuple:
    """The integers of one attention call over ``rows`` = (first packed index, queries,
    position of the first query, block table): query index and position of each of the
    ``B × Q`` query slots, the ``B × NB`` padded block tables, the kept slots and their
    packed index (None, None: all slots are real), and ``(B, Q, NB)``. Keys are read whole
    blocks at a time; the mask hides everything past each query's own position."""
    B, Q = len(rows), max(r[1] for r in rows)
    NB = max(len(r[3]) for r in rows)
    tables = []
    for *_, t in rows:
        tables += t
        tables += [0] * (NB - len(t))
    if Q == 1:   # decode rows: one query each (the common case: no padding to drop)
        return [r[0] for r in rows], [r[2] for r in rows], tables, None, None, (B, 1, NB)
    q_idx = [first + min(i, n - 1) for first, n, _, _ in rows for i in range(Q)]
    q_pos = [start + i if i < n else 0 for _, n, start, _ in rows for i in range(Q)]
    keep = [r * Q + i for r, (_, n, _, _) in enumerate(rows) for i in range(n)]
    return q_idx, q_pos, tables, keep, [q_idx[k] for k in keep], (B, Q, NB)


SPLIT_GAIN = 0.75  # split the decode rows only if it cuts the padded KV read by 25 %+
                  # (each extra attention call has a fixed cost)


def _split_decode(rows: list) -> list[list]:
    """Decode rows in one attention call, or two (short tables, long tables) when that
    saves enough padding: every row of a call reads as many blocks as its longest."""
    if len(rows) < 4:
        return [rows] if rows else []
    rows = sorted(rows, key=lambda r: len(r[3]))
    n = [len(r[3]) for r in rows]
    cost, i = min((k * n[k - 1] + (len(n) - k) * n[-1], k) for k in range(1, len(n)))
    return [rows[:i], rows[i:]] if cost <= SPLIT_GAIN * len(n) * n[-1] else [rows]
