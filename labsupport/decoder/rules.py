"""The scheduler's three decision rules, as plain functions (no torch, no state of their
own): the KV-budget admission check, on-demand block growth with preemption, and
continuous admission under the step's token budget. ``Scheduler`` calls them (its
``grow_fn`` and ``admit_fn``); notebook 06 has students write them.
"""
from __future__ import annotations

from .kvcache import BlockManager
from .sequence import DecodeSequence


def kv_admission(prompt_len: int, max_new_tokens: int, free_blocks: int, num_blocks: int,
                 block_size: int, admission: str = "reserve") -> str:
    """The KV-budget admission check: ``"admit"`` (fits now), ``"wait"`` (fits once others
    free their blocks) or ``"reject"`` (needs more than the whole budget: would wait forever).

    A request needs ``prompt_len + max_new_tokens`` KV tokens at most, in whole blocks.
    ``reserve`` admits only when all of them are free; ``on_demand`` when the prompt's are.
    """
    full = -(-(prompt_len + max_new_tokens) // block_size)
    if full > num_blocks:
        return "reject"
    need = full if admission == "reserve" else -(-prompt_len // block_size)
    return "admit" if need <= free_blocks else "wait"


def grow_or_preempt(seq: DecodeSequence, n_tokens: int, running: list[DecodeSequence], kv: BlockManager,
                    preempt) -> bool:
    """On-demand growth: give ``seq`` blocks for ``n_tokens`` tokens in all. While too few
    blocks are free, ``preempt`` the latest arrival among the running sequences (``running[-1]``:
    vLLM's FCFS priority; it loses its blocks and its place and queues again); if that is ``seq`` itself, return False.
    Returns True once ``seq`` holds its blocks."""
    while not kv.can_grow(seq, n_tokens):
        victim = running[-1]
        preempt(victim)
        if victim is seq:
            return False
    kv.grow(seq, n_tokens)
    return True


def admit_waiting(waiting, free_places: int, budget: int, admit, feed) -> None:
    """Continuous admission under the step's token budget: while a place is free and tokens
    are left, offer the head of ``waiting`` to ``admit(seq)`` (True: the KV budget let it
    start); stop at the first that does not fit (FIFO, no overtaking). An admitted sequence
    leaves ``waiting`` and ``feed(seq, n)`` schedules its first chunk: ``n`` = as much of
    its prompt as the budget still allows (chunked prefill)."""
    while waiting and free_places > 0 and budget > 0:
        seq = waiting[0]
        if not admit(seq):
            break
        waiting.popleft()
        free_places -= 1
        n = min(seq.uncached, budget)
        feed(seq, n)
        budget -= n
