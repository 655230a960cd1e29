"""The scheduler: which sequences run in the next model step, and how many tokens each.

Two modes on the same code:

- ``continuous`` (Orca's iteration-level scheduling): every step, running sequences
  continue, finished ones leave at once, and waiting ones are admitted into free places.
- ``request`` (a static, request-level batch): a batch is admitted only when the previous
  one has finished completely; early finishers keep their place until the longest is done.

Two admission rules for the KV budget:

- ``reserve`` (Orca): a sequence is admitted only if blocks for its *whole* length
  (prompt + max_new_tokens) are free, and they are taken at once. Never preempts.
- ``on_demand`` (vLLM): blocks are taken as tokens appear; when a running sequence needs a
  block and none is free, the latest arrival among the running sequences is preempted
  (vLLM's priority under first-come-first-served): its blocks are freed
  and it goes back to the head of the queue, to be recomputed (prompt + tokens so far).

Prompts longer than ``max_tokens_per_step`` are prefilled in chunks. With ``prefix_caching``
an admitted sequence first takes the cached blocks of its leading full blocks (see
``kvcache``) and only the rest of its prompt is fed to the model. A request whose
length can never fit the KV budget is rejected by ``add`` (``RequestTooLong``).
Pure Python: imports no torch.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from ..validate import check_choice, check_int
from .kvcache import BlockManager
from .rules import admit_waiting, grow_or_preempt, kv_admission
from .sequence import DecodeSequence, Status

MODES = ("continuous", "request")
ADMISSIONS = ("reserve", "on_demand")


class RequestTooLong(ValueError):
    """The request needs more KV than the whole budget: it could never run."""


@dataclass
class SchedulerConfig:
    """Knobs (vLLM's names in brackets)."""
    mode: str = "continuous"        # "continuous" or "request"
    admission: str = "reserve"      # "reserve" (Orca) or "on_demand" (vLLM, preempts)
    max_seqs: int = 16              # concurrent sequences [max_num_seqs]; 16 fills a CPU step
    max_tokens_per_step: int = 256  # tokens per forward [max_num_batched_tokens]
    kv_budget_tokens: int = 8192    # KV cache size in tokens (whole blocks)
    block_size: int = 16            # tokens per KV block: vLLM's default
    pad_finished: bool = True       # request mode: finished rows keep computing a padding
                                    # token until the batch ends, as a static batch does
    prefix_caching: bool = False    # share cached full blocks of equal prefixes
                                    # [enable_prefix_caching]; off: every prompt is computed

    def __post_init__(self):
        check_choice("mode", self.mode, MODES)
        check_choice("admission", self.admission, ADMISSIONS)
        self.max_seqs = check_int("max_seqs", self.max_seqs, 1, 4096)
        self.max_tokens_per_step = check_int("max_tokens_per_step", self.max_tokens_per_step, 1)
        self.block_size = check_int("block_size", self.block_size, 1, 4096)
        self.kv_budget_tokens = check_int("kv_budget_tokens", self.kv_budget_tokens,
                                          self.block_size)
        if self.mode == "request" and self.admission != "reserve":
            raise ValueError("mode='request' needs admission='reserve': a static batch sizes "
                             "its cache for its longest member before it starts")


@dataclass
class StepPlan:
    """What one step runs: ``seqs[i]`` feeds ``num_new[i]`` tokens (1 when decoding);
    ``sample[i]`` says whether that row yields a token (False for a partial prefill chunk);
    ``pad[i]``: a finished row of a static batch, computed but discarded (no KV kept)."""
    seqs: list[DecodeSequence] = field(default_factory=list)
    num_new: list[int] = field(default_factory=list)
    sample: list[bool] = field(default_factory=list)
    pad: list[bool] = field(default_factory=list)
    preempted: list[DecodeSequence] = field(default_factory=list)

    def add(self, seq: DecodeSequence, n: int, pad: bool = False) -> None:
        self.seqs.append(seq)
        self.num_new.append(n)
        self.sample.append(not pad and n == seq.uncached)
        self.pad.append(pad)

    @property
    def num_tokens(self) -> int:
        return sum(self.num_new)

    def kv_read(self) -> int:
        """KV tokens the attention reads, padded the way the runner batches it: decode rows
        together and prefill chunks together, each group to its longest context."""
        ctx = {True: [], False: []}
        for seq, n, pad in zip(self.seqs, self.num_new, self.pad):
            ctx[n == 1].append(seq.num_cached + (0 if pad else n))
        return sum(len(c) * max(c) for c in ctx.values() if c)

    def __bool__(self) -> bool:
        return bool(self.seqs)


class Scheduler:
    """Queues, running set and KV blocks of one engine. ``schedule`` → run → ``postprocess``.
    ``grow_fn`` and ``admit_fn`` are the two rules above (a check plugs a student's in)."""
    grow_fn = staticmethod(grow_or_preempt)
    admit_fn = staticmethod(admit_waiting)

    def __init__(self, cfg: SchedulerConfig | None = None, **knobs):
        self.cfg = cfg if cfg is not None else SchedulerConfig(**knobs)
        c = self.cfg
        self.kv = BlockManager(c.kv_budget_tokens // c.block_size, c.block_size,
                               prefix_caching=c.prefix_caching)
        self.waiting: deque[DecodeSequence] = deque()
        self.running: list[DecodeSequence] = []   # admission order: oldest first
        self.finished: list[DecodeSequence] = []
        self.free_slots = list(range(c.max_seqs))

    # -- queue ------------------------------------------------------------------------
    def add(self, seq: DecodeSequence) -> None:
        """Queue ``seq``; reject it at once if it could never fit the KV budget."""
        if self._decide(seq) == "reject":
            raise RequestTooLong(
                f"request {seq.id}: prompt ({len(seq.prompt)} tokens) + max_new_tokens "
                f"({seq.max_new_tokens}) needs {seq.max_len} KV tokens, more than "
                f"kv_budget_tokens={self.kv.budget_tokens}; raise kv_budget_tokens or shorten it")
        seq.status = Status.WAITING
        self.waiting.append(seq)

    def has_work(self) -> bool:
        return bool(self.waiting) or bool(self.running)

    # -- one step ---------------------------------------------------------------------
    def schedule(self, now: float = 0.0) -> StepPlan:
        """Pick this step's sequences and token counts, within every budget."""
        plan, budget = StepPlan(), self.cfg.max_tokens_per_step
        preempt = lambda victim: self._preempt(victim, plan)  # noqa: E731
        for seq in list(self.running):               # 1. running ones keep going
            if seq.status is not Status.RUNNING or budget == 0:
                continue
            n = min(seq.uncached, budget)
            if self.grow_fn(seq, seq.num_cached + n, self.running, self.kv, preempt):
                if (seq.status is not Status.RUNNING
                        or self.kv.extra_blocks(seq, seq.num_cached + n)):
                    raise ValueError(f"grow_or_preempt returned True for sequence {seq.id}, "
                                     "which was preempted or lacks its blocks")
                plan.add(seq, n)
                budget -= n
        if self.cfg.mode == "request" and self.running:
            if self.cfg.pad_finished:                # finished rows hold their place and
                for seq in self.running:             # still cost a row (budget permitting)
                    if seq.status is Status.FINISHED and budget:
                        plan.add(seq, 1, pad=True)
                        budget -= 1
            return plan
        if plan.preempted:
            return plan
        if self.cfg.mode == "continuous":            # 2. admit from the head of the queue
            self.admit_fn(self.waiting, len(self.free_slots), budget,
                          lambda seq: self._try_admit(seq, now), lambda seq, n: self._feed(
                              seq, n, plan))
        else:                                        # a static batch fills every place; its
            while self.waiting and self.free_slots and self._try_admit(self.waiting[0], now):
                seq = self.waiting.popleft()         # prompts prefill over the next steps
                n = min(seq.uncached, budget)
                if n:
                    self._feed(seq, n, plan)
                    budget -= n
        if plan.num_tokens > self.cfg.max_tokens_per_step:
            raise RuntimeError(f"the step plan feeds {plan.num_tokens} tokens, more than "
                               f"max_tokens_per_step={self.cfg.max_tokens_per_step}")
        return plan

    def _try_admit(self, seq: DecodeSequence, now: float) -> bool:
        """Admit the head of the queue if the KV budget lets it start now (it takes a place,
        its cached prefix blocks and, under ``reserve``, all its blocks); the caller then
        pops it from ``waiting``."""
        if not self.waiting or seq is not self.waiting[0]:
            raise ValueError(f"admit(seq): only the head of waiting may be admitted (FIFO), "
                             f"got sequence {seq.id}")
        if not self.free_slots:
            raise ValueError(f"admit(seq): no free place for sequence {seq.id} "
                             f"(max_seqs={self.cfg.max_seqs})")
        if seq.status is Status.RUNNING:
            raise ValueError(f"admit(seq): sequence {seq.id} was admitted already: pop it "
                             "from waiting")
        hits = self.kv.prefix_hits(seq)
        if self._decide(seq, hits) != "admit":
            return False
        self._admit(seq, now, hits)
        return True

    def _feed(self, seq: DecodeSequence, n: int, plan: StepPlan) -> None:
        """Schedule ``n`` tokens of an admitted ``seq`` in this step (takes their blocks)."""
        if seq.status is not Status.RUNNING or not 1 <= n <= seq.uncached:
            raise ValueError(f"feed(seq, n): sequence {seq.id} is {seq.status.value} with "
                             f"{seq.uncached} tokens to compute; n must be in [1, uncached] "
                             f"for an admitted sequence, got {n}")
        self.kv.grow(seq, seq.num_cached + n)
        plan.add(seq, n)

    def _decide(self, seq: DecodeSequence, hits: list[int] = ()) -> str:
        """``kv_admission`` for ``seq`` (after a preemption its tokens so far count as prompt);
        ``hits``: its cached prefix blocks, which it holds without taking free ones."""
        kv = self.kv
        return kv_admission(len(seq), seq.max_new_tokens - len(seq.output),
                            kv.free_after_hits(list(hits)), kv.num_blocks, kv.block_size,
                            self.cfg.admission)

    def _admit(self, seq: DecodeSequence, now: float, hits: list[int] = ()) -> None:
        if hits:
            self.kv.share(seq, list(hits))
            seq.prefix_hit = max(seq.prefix_hit, seq.num_cached)
        if self.cfg.admission == "reserve":
            self.kv.grow(seq, seq.max_len)
        seq.status, seq.slot = Status.RUNNING, self.free_slots.pop(0)
        if math.isnan(seq.admitted):      # first admission (not a readmission)
            seq.admitted = now
        self.running.append(seq)

    def _preempt(self, seq: DecodeSequence, plan: StepPlan) -> None:
        if seq not in self.running:
            raise ValueError(f"preempt(seq): sequence {seq.id} is not running")
        if any(s is seq for s in plan.seqs):
            raise ValueError(f"preempt(seq): sequence {seq.id} already runs in this step; "
                             "preempt the latest arrival (running[-1]) instead")
        self.running.remove(seq)
        self._release(seq)
        seq.status = Status.WAITING
        seq.preemptions += 1
        self.waiting.appendleft(seq)
        plan.preempted.append(seq)

    def _release(self, seq: DecodeSequence) -> None:
        self.kv.free(seq)
        self.free_slots.append(seq.slot)
        self.free_slots.sort()
        seq.slot = -1

    def postprocess(self, plan: StepPlan, tokens: list[int | None], now: float) -> list[DecodeSequence]:
        """Record this step's tokens (``tokens[i]`` for ``plan.seqs[i]``, None where the row
        does not sample); retire finished sequences. Returns those that finished now."""
        done = []
        for seq, n, tok, pad in zip(plan.seqs, plan.num_new, tokens, plan.pad):
            if pad:
                continue
            seq.num_cached += n
            self.kv.commit(seq, seq.num_cached - n)
            if tok is None:
                continue
            seq.output.append(int(tok))
            seq.token_times.append(now)
            if len(seq.output) == 1:
                seq.first_token = now
            if seq.done:
                seq.status, seq.finish = Status.FINISHED, now
                done.append(seq)
                if self.cfg.mode == "continuous":
                    self._retire(seq)
        if self.cfg.mode == "request" and self.running and all(
                s.status is Status.FINISHED for s in self.running):
            for seq in list(self.running):           # the whole batch leaves together
                self._retire(seq)
        return done

    def _retire(self, seq: DecodeSequence) -> None:
        self.running.remove(seq)
        self._release(seq)
        self.finished.append(seq)
