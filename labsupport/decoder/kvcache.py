"""The KV-cache manager: a fixed pool of blocks of ``block_size`` token slots (vLLM's
paged KV). Pure Python, no torch: it only decides which slots a sequence owns; the model
runner keeps the tensors, ``num_blocks × block_size`` rows per layer.

Token ``i`` of a sequence lives in slot ``block_table[i // block_size] * block_size +
i % block_size``. The budget, in tokens, is ``num_blocks × block_size``; the manager never
hands out more (``peak_blocks`` records the high-water mark for tests and plots).
"""
from __future__ import annotations

from collections import deque

from ..validate import check_int
from .sequence import Sequence


class KVBudgetExceeded(RuntimeError):
    """Raised when a caller asks for blocks the pool does not have (a scheduler bug)."""


class BlockManager:
    def __init__(self, num_blocks: int, block_size: int = 16):
        self.num_blocks = check_int("num_blocks", num_blocks, 1)
        self.block_size = check_int("block_size", block_size, 1)
        self.free_blocks: deque[int] = deque(range(num_blocks))
        self.peak_blocks = 0

    @property
    def budget_tokens(self) -> int:
        return self.num_blocks * self.block_size

    @property
    def used_blocks(self) -> int:
        return self.num_blocks - len(self.free_blocks)

    def blocks_for(self, n_tokens: int) -> int:
        """Blocks needed to hold ``n_tokens`` tokens."""
        return -(-n_tokens // self.block_size)

    def extra_blocks(self, seq: Sequence, n_tokens: int) -> int:
        """Blocks ``seq`` still lacks to hold ``n_tokens`` tokens in total."""
        return max(0, self.blocks_for(n_tokens) - len(seq.block_table))

    def can_grow(self, seq: Sequence, n_tokens: int) -> bool:
        return self.extra_blocks(seq, n_tokens) <= len(self.free_blocks)

    def grow(self, seq: Sequence, n_tokens: int) -> None:
        """Give ``seq`` enough blocks for ``n_tokens`` tokens in total."""
        need = self.extra_blocks(seq, n_tokens)
        if need > len(self.free_blocks):
            raise KVBudgetExceeded(
                f"sequence {seq.id} needs {need} more KV blocks, {len(self.free_blocks)} free "
                f"of {self.num_blocks}")
        seq.block_table.extend(self.free_blocks.popleft() for _ in range(need))
        self.peak_blocks = max(self.peak_blocks, self.used_blocks)

    def free(self, seq: Sequence) -> None:
        """Return all of ``seq``'s blocks to the pool; its cached tokens are gone."""
        self.free_blocks.extend(seq.block_table)
        seq.block_table = []
        seq.num_cached = 0

    def slots(self, seq: Sequence, start: int, stop: int) -> list[int]:
        """Cache slots of ``seq``'s tokens ``start..stop-1``."""
        bs, table = self.block_size, seq.block_table
        return [table[i // bs] * bs + i % bs for i in range(start, stop)]
