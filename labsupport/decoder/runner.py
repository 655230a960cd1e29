"""The model runner: a GPT-2-architecture decoder run over a paged KV cache.

The weights and layers are a ``transformers`` ``GPT2LMHeadModel`` (built from a seeded
config by ``tiny_gpt2``, or any local GPT-2 checkpoint via ``load_decoder``). Only the
attention is done here: each step packs every scheduled token into one ``[N, hidden]``
batch for the dense layers (Orca's *selective batching*; the packing is ``ragged.layout``),
writes the new K/V into the slots the ``BlockManager`` gave each sequence, and attends each
row to its own cached tokens. So every row sits at its own position, and rows join and
leave between steps. Greedy decoding: the next token is the argmax.
"""
from __future__ import annotations

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


class ModelRunner:
    """Runs a ``StepPlan`` through the model; owns the K/V tensors (one pair per layer)."""

    def __init__(self, model=None, device=None):
        self.device = torch.device(device) if device is not None else get_device()
        self.model = (model if model is not None else tiny_gpt2()).to(self.device).eval()
        c = self.model.config
        self.heads, self.head_dim = c.n_head, c.n_embd // c.n_head
        self.max_positions = c.n_positions
        self.k: list[torch.Tensor] = []
        self.v: list[torch.Tensor] = []

    def init_cache(self, kv: BlockManager) -> None:
        """Allocate ``num_blocks × block_size`` K and V rows per layer."""
        # one extra row at the end: scratch for padding rows, whose K/V nobody reads
        shape = (kv.num_blocks * kv.block_size + 1, self.heads, self.head_dim)
        dt = self.model.dtype
        n = self.model.config.n_layer
        self.k = [torch.zeros(shape, dtype=dt, device=self.device) for _ in range(n)]
        self.v = [torch.zeros(shape, dtype=dt, device=self.device) for _ in range(n)]
        blocked = (kv.num_blocks, kv.block_size * self.heads * self.head_dim)
        self.k_blocks = [t[:-1].view(blocked) for t in self.k]   # views, same storage
        self.v_blocks = [t[:-1].view(blocked) for t in self.v]

    def _weights(self) -> list[tuple]:
        """Per layer: (ln_1 weight, bias, eps), c_attn W, b, c_proj W, b, (ln_2 ...), c_fc W,
        b, the activation, mlp.c_proj W, b (kept once; the model is not trained here)."""
        if getattr(self, "_w", None) is None:
            ln = lambda m: (m.weight, m.bias, m.eps)  # noqa: E731
            self._w = [(ln(b.ln_1), b.attn.c_attn.weight, b.attn.c_attn.bias,
                        b.attn.c_proj.weight, b.attn.c_proj.bias, ln(b.ln_2),
                        b.mlp.c_fc.weight, b.mlp.c_fc.bias, b.mlp.act,
                        b.mlp.c_proj.weight, b.mlp.c_proj.bias) for b in self.model.transformer.h]
        return self._w

    def _meta(self, plan: StepPlan, kv: BlockManager):
        lay = layout(plan, kv, self.max_positions)     # the packed step (``ragged``)
        d = self.device
        # decode rows (1 query) and prefill chunks attend in separate calls, so one long
        # prompt does not pad every decode row to its length
        groups = [self._group(g, kv.block_size)
                  for g in _split_decode([r for r in lay.rows if r[1] == 1])]
        groups.append(self._group([r for r in lay.rows if r[1] > 1], kv.block_size))
        ids, pos, slots = torch.tensor([lay.ids, lay.positions, lay.slots], device=d)
        return ids, pos, slots, [g for g in groups if g is not None], torch.tensor(lay.last,
                                                                                   device=d)

    def _group(self, rows, block_size: int):
        """Index tensors for one attention call over ``rows`` = (first packed index, queries,
        position of the first query, block table). Keys are read whole blocks at a time;
        the causal mask hides everything past each query's own position."""
        if not rows:
            return None
        B, Q = len(rows), max(r[1] for r in rows)
        NB = max(len(r[3]) for r in rows)
        tables = [t + [0] * (NB - len(t)) for *_, t in rows]
        if Q == 1:   # decode rows: one query each (the common case: plain lists, no keep)
            q_idx, q_pos, keep = [[r[0]] for r in rows], [[r[2]] for r in rows], None
        else:
            q_idx = [[first + min(i, n - 1) for i in range(Q)] for first, n, _, _ in rows]
            q_pos = [[start + i if i < n else 0 for i in range(Q)] for _, n, start, _ in rows]
            keep = [r * Q + i for r, (_, n, _, _) in enumerate(rows) for i in range(n)]
        d = self.device
        q_idx = torch.tensor(q_idx, device=d)
        T = NB * block_size
        # an additive float mask (0 / -inf): SDPA's CPU kernel runs it faster than a bool one
        mask = torch.zeros((B, Q, T), device=d, dtype=self.model.dtype).masked_fill_(
            torch.arange(T, device=d)[None, :] > torch.tensor(q_pos, device=d)[:, :, None],
            float("-inf"))
        q_idx = q_idx.flatten()
        if keep is None:   # nothing to drop
            return q_idx, torch.tensor(tables, device=d).flatten(), mask[:, None], None, q_idx, \
                (B, Q, NB)
        keep = torch.tensor(keep, device=d)
        return (q_idx, torch.tensor(tables, device=d).flatten(), mask[:, None], keep,
                q_idx.index_select(0, keep), (B, Q, NB))

    @torch.inference_mode()
    def run(self, plan: StepPlan, kv: BlockManager) -> list[int | None]:
        """Feed the plan's tokens, fill the cache; the greedy next token of each sampling row."""
        ids, pos, slots, groups, last = self._meta(plan, kv)
        tm, H, D = self.model.transformer, self.heads, self.head_dim
        h = tm.wte(ids) + tm.wpe(pos)                                   # [N, E]
        N, E = h.shape
        # the blocks' own weights and ops, called directly (GPT-2's Conv1D is x @ W + b):
        # the same arithmetic as the modules, without their per-call Python overhead
        for layer, (ln1, wqkv, bqkv, wo, bo, ln2, wfc, bfc, act, wpr, bpr) in enumerate(
                self._weights()):
            q, k, v = torch.addmm(bqkv, F.layer_norm(h, (E,), *ln1), wqkv).split(E, dim=1)
            q = q.reshape(N, H, D)
            self.k[layer].index_copy_(0, slots, k.reshape(N, H, D))
            self.v[layer].index_copy_(0, slots, v.reshape(N, H, D))
            o = torch.empty_like(q)
            kc, vc = self.k_blocks[layer], self.v_blocks[layer]      # [blocks, bs·H·D]
            for q_idx, tables, mask, keep, out_idx, (B, Q, NB) in groups:
                qb = q.index_select(0, q_idx).view(B, Q, H, D).transpose(1, 2)   # [B,H,Q,D]
                kb = kc.index_select(0, tables).view(B, -1, H, D).transpose(1, 2)  # [B,H,T,D]
                vb = vc.index_select(0, tables).view(B, -1, H, D).transpose(1, 2)
                ob = F.scaled_dot_product_attention(qb, kb, vb, attn_mask=mask)
                ob = ob.transpose(1, 2).reshape(B * Q, H, D)
                if keep is not None:                                   # drop query padding
                    ob = ob.index_select(0, keep)
                o.index_copy_(0, out_idx, ob)                          # back to packed order
            h = h + torch.addmm(bo, o.view(N, E), wo)
            h = h + torch.addmm(bpr, act(torch.addmm(bfc, F.layer_norm(h, (E,), *ln2), wfc)),
                                wpr)
        logits = self.model.lm_head(tm.ln_f(h[last]))
        nxt = logits.argmax(-1).tolist()
        return [t if s else None for t, s in zip(nxt, plan.sample)]


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


def run_requests(requests, model=None, *, clock: str = "wall", device=None,
                 max_new_tokens: int | None = None, eos_token_id: int | None = None, **knobs):
    """Replay ``requests`` (``payload`` = prompt token ids, ``output_len``, ``arrival`` ms)
    through a fresh ``Engine`` on the real model; the same call shape as
    ``stepsim.simulate_steps``, so one experiment runs on either. Each request's cap is
    ``max_new_tokens`` (None: its ``output_len``); ``eos_token_id`` ends an answer where
    the model produces it."""
    from .engine import Engine
    from .scheduler import SchedulerConfig
    eng = Engine(ModelRunner(model, device=device), SchedulerConfig(**knobs), clock=clock)
    return eng.run([(r.payload, r.output_len if max_new_tokens is None else max_new_tokens,
                     r.arrival, r.id, eos_token_id) for r in requests])

