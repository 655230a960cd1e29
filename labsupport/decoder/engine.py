"""The engine: one ``step()`` = schedule → run the model → postprocess; and ``run()``,
which replays timed arrivals through steps.

Clock (ms): ``clock="wall"`` advances by each step's measured wall time (the real model),
``clock="cpu"`` by the step's CPU time in this thread (steadier on a shared machine; run
torch with one thread), ``clock="model"`` by ``runner.cost_ms(plan)`` (the step
simulator). When nothing can run, the clock jumps to the next arrival instead of sleeping.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

from ..validate import check_choice, check_int
from .ragged import StepLayout, layout
from .scheduler import RequestTooLong, Scheduler, SchedulerConfig
from .sequence import DecodeSequence


@dataclass
class StepRecord:
    """One step: start time and duration (ms), tokens fed, and who sat in which row:
    ``rows`` = (slot, sequence id, tokens fed; 0 = finished but still holding its place)."""
    start: float
    ms: float
    tokens: int           # tokens computed (padding rows included)
    rows: list[tuple[int, int, int]]
    waiting: int          # sequences queued (arrived, not admitted) when the step began
    preempted: int = 0
    kv_blocks: int = 0    # KV blocks in use after the step
    seqs: int = 0         # rows computed (padding rows included)
    kv_read: int = 0      # KV tokens read by the attention (padded, see StepPlan.kv_read)
    kv_tokens: int = 0    # tokens whose K/V the running sequences hold after the step
    blocks: list[tuple[int, list[int]]] | None = None  # (sequence id, block table) per
                                                        # running sequence (record_blocks)
    layout: StepLayout | None = None  # the packed tokens the step fed (record_layout)


@dataclass
class EngineResult:
    sequences: list[DecodeSequence]
    steps: list[StepRecord]
    config: SchedulerConfig
    peak_kv_blocks: int = 0
    num_blocks: int = 0
    meta: dict = field(default_factory=dict)
    prefix_hit_tokens: int = 0   # prompt tokens served from the prefix cache (not fed)
    evictions: int = 0           # cached blocks reused for other tokens


class Engine:
    """``Engine(runner, SchedulerConfig(...))``; ``add(...)`` requests, then ``step()`` or
    ``run()``. ``runner``: a ``ModelRunner`` (real model) or a ``stepsim.CostRunner``.
    ``keep_steps``: keep only about the last that many ``StepRecord``s (a long-running
    server); ``num_steps`` counts every step run. ``record_blocks``: keep every step's block
    tables (``timeline.plot_blocks``); ``record_layout``: every step's packed tokens
    (``ragged.StepLayout``: positions, slots, the mask's spans)."""

    def __init__(self, runner, cfg: SchedulerConfig | None = None, *, clock: str = "wall",
                 keep_steps: int | None = None, record_blocks: bool = False,
                 record_layout: bool = False, **knobs):
        self.record_blocks = bool(record_blocks)
        self.record_layout = bool(record_layout)
        self.cfg = cfg if cfg is not None else SchedulerConfig(**knobs)
        self.clock = check_choice("clock", clock, ("wall", "cpu", "model"))
        self.sched = Scheduler(self.cfg)
        self.runner = runner
        runner.init_cache(self.sched.kv)
        self.now = 0.0
        self.steps: list[StepRecord] = []   # the last ``keep_steps`` records (None: all)
        self.keep_steps = None if keep_steps is None else check_int("keep_steps", keep_steps, 1)
        self.num_steps = 0                  # steps run so far (records may be dropped)
        self._next_id = 0

    def add(self, prompt: list[int], max_new_tokens: int, *, arrival: float | None = None,
            id: int | None = None, eos_token_id: int | None = None) -> DecodeSequence:
        """Queue a request (arrival defaults to now): ``max_new_tokens`` is its cap, and
        ``eos_token_id`` (None: none) ends it earlier. Raises ``RequestTooLong`` if it can
        never fit the KV budget."""
        if prompt is None:
            raise ValueError(f"request {id}: no prompt token ids (a traffic.Request needs a "
                             "payload: see decoder.workload.with_prompts)")
        seq = DecodeSequence(self._next_id if id is None else id, list(prompt),
                             int(max_new_tokens), self.now if arrival is None else float(arrival),
                             eos_token_id=None if eos_token_id is None else int(eos_token_id))
        limit = getattr(self.runner, "max_positions", None)
        if limit is not None and seq.max_len > limit:
            raise RequestTooLong(f"request {seq.id}: prompt ({len(seq.prompt)} tokens) + "
                                 f"max_new_tokens ({seq.max_new_tokens}) exceeds the model's "
                                 f"n_positions={limit}")
        self._next_id = max(self._next_id, seq.id) + 1
        self.sched.add(seq)
        return seq

    def has_work(self) -> bool:
        return self.sched.has_work()

    def step(self) -> list[DecodeSequence]:
        """Run one iteration; returns the sequences that finished in it."""
        t0, c0, start = time.perf_counter(), time.thread_time(), self.now
        waiting = len(self.sched.waiting)
        plan = self.sched.schedule(self.now)
        if not plan:
            return []
        lay = layout(plan, self.sched.kv) if self.record_layout else None
        tokens = self.runner.run(plan, self.sched.kv)
        if self.clock == "model":
            ms = self.runner.cost_ms(plan)
        elif self.clock == "cpu":
            ms = (time.thread_time() - c0) * 1000.0
        else:
            ms = (time.perf_counter() - t0) * 1000.0
        self.now += ms
        kv_read = plan.kv_read()
        fed = {s.id: n for s, n, p in zip(plan.seqs, plan.num_new, plan.pad) if not p}
        rows = [(s.slot, s.id, fed.get(s.id, 0)) for s in self.sched.running]
        done = self.sched.postprocess(plan, tokens, self.now)
        running = self.sched.running
        self.steps.append(StepRecord(
            start, ms, plan.num_tokens, rows, waiting, len(plan.preempted),
            self.sched.kv.used_blocks, len(plan.seqs), kv_read,
            sum(s.num_cached for s in running),
            [(s.id, list(s.block_table)) for s in running] if self.record_blocks else None,
            lay))
        self.num_steps += 1
        if self.keep_steps is not None and len(self.steps) > 2 * self.keep_steps:
            del self.steps[:-self.keep_steps]   # a long-running server keeps memory bounded
        return done

    def run(self, requests: Iterable = (), on_finish: Callable[[DecodeSequence], None] | None = None,
            max_steps: int | None = None) -> EngineResult:
        """Replay ``requests`` (objects with ``arrival`` ms, ``payload`` = prompt token ids and
        ``output_len``, taken as the cap; or ``(prompt, max_new_tokens, arrival[, id[,
        eos_token_id]])`` tuples) until all finish.
        ``max_steps``: raise ``RuntimeError`` after that many steps (a scheduler that makes
        no progress would loop forever)."""
        pending = sorted((_as_tuple(r) for r in requests), key=lambda r: r[2])
        all_seqs = list(self.sched.waiting) + list(self.sched.running)
        i, tries = 0, 0
        while i < len(pending) or self.has_work():
            tries += 1
            if max_steps is not None and tries > max_steps:
                raise RuntimeError(f"the engine did not finish within max_steps={max_steps}: "
                                   f"{len(self.sched.waiting)} waiting, "
                                   f"{len(self.sched.running)} running")
            while i < len(pending) and pending[i][2] <= self.now:
                p, n, a, rid, eos = pending[i]
                all_seqs.append(self.add(p, n, arrival=a, id=rid, eos_token_id=eos))
                i += 1
            if not self.has_work():
                self.now = max(self.now, pending[i][2])   # idle: jump to the next arrival
                continue
            for seq in self.step():
                if on_finish is not None:
                    on_finish(seq)
        kv = self.sched.kv
        return EngineResult(sorted(all_seqs, key=lambda s: s.id), self.steps, self.cfg,
                            kv.peak_blocks, kv.num_blocks, prefix_hit_tokens=kv.hit_tokens,
                            evictions=kv.evictions)


def _as_tuple(r):
    if isinstance(r, tuple):
        prompt, n, arrival, rid, eos = (*r, None, None)[:5]
        return prompt, int(n), float(arrival), rid, eos
    return r.payload, int(r.output_len), float(r.arrival), r.id, None
