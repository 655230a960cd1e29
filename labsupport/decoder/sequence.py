"""One generation request as the engine sees it: tokens so far, KV blocks, timestamps.

Pure Python (no torch), so the scheduler and the KV-cache manager test on their own.
Times are ms on the engine's clock; lengths are tokens.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum


class Status(Enum):
    WAITING = "waiting"     # queued (new, or preempted and waiting to be recomputed)
    RUNNING = "running"     # holds KV blocks and a place in the batch
    FINISHED = "finished"   # produced all its tokens (may still hold its place: request-level)


@dataclass(eq=False)
class DecodeSequence:
    """A prompt and the tokens generated for it. ``max_new_tokens`` is the cap the client
    sent (an API's ``max_tokens``): the answer stops there at the latest. With
    ``eos_token_id`` it stops earlier, at its own end: when it produces that token (kept in
    ``output``, as ``transformers``' ``generate`` keeps it). The scheduler cannot know that
    end in advance: it only knows the cap."""
    id: int
    prompt: list[int]
    max_new_tokens: int
    arrival: float = 0.0                  # ms
    output: list[int] = field(default_factory=list)
    status: Status = Status.WAITING
    block_table: list[int] = field(default_factory=list)  # KV blocks, in token order
    num_cached: int = 0                   # tokens whose K/V sit in the cache
    admitted: float = math.nan            # ms, first admission
    first_token: float = math.nan         # ms, when output[0] was produced
    finish: float = math.nan              # ms, when the last token was produced
    preemptions: int = 0
    slot: int = -1                        # row of the batch it holds while running (-1: none)
    token_times: list[float] = field(default_factory=list)  # ms, one per output token
    block_hashes: list[int] = field(default_factory=list)  # names of its full blocks so far
    prefix_hit: int = 0                   # prompt tokens taken from the prefix cache
    eos_token_id: int | None = None       # stop token (None: run to the cap)

    def __post_init__(self):
        if not self.prompt:
            raise ValueError(f"sequence {self.id}: prompt must hold at least 1 token")
        if self.max_new_tokens < 1:
            raise ValueError(f"sequence {self.id}: max_new_tokens must be >= 1, "
                             f"got {self.max_new_tokens}")

    @property
    def tokens(self) -> list[int]:
        return self.prompt + self.output

    def token_slice(self, start: int, stop: int) -> list[int]:
        """``tokens[start:stop]`` without building the whole list (a decode step reads one)."""
        p = len(self.prompt)
        if start >= p:
            return self.output[start - p:stop - p]
        return self.prompt[start:stop] + self.output[:max(0, stop - p)]

    def __len__(self) -> int:
        return len(self.prompt) + len(self.output)

    @property
    def uncached(self) -> int:
        """Tokens still to run through the model before the next token can be sampled."""
        return len(self) - self.num_cached

    @property
    def stopped(self) -> bool:
        """It produced its stop token (it ended before, or at, its cap)."""
        return (self.eos_token_id is not None and bool(self.output)
                and self.output[-1] == self.eos_token_id)

    @property
    def done(self) -> bool:
        return len(self.output) >= self.max_new_tokens or self.stopped

    @property
    def max_len(self) -> int:
        """KV tokens reserved for this sequence: prompt + max_new_tokens, the cap (one more
        than it will ever store, since the last sampled token is never fed back: kept
        simple). An answer that stops at its stop token uses less."""
        return len(self.prompt) + self.max_new_tokens

