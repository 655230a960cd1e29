"""A reference-counted pool of KV blocks with copy-on-write: the lab's answer to notebook
06's design exercise (ex06_8), and the pool its demo falls back to.

The pool only decides which blocks hold which sequence's tokens; the runner keeps the
tensors. Sequences are named by any hashable id. ``allocate(seq, n_tokens)`` gives a new
sequence blocks for its prompt; ``append(seq)`` makes room for one more token and returns
its cache slot (``block * block_size + row``); ``fork(parent, child)`` lets ``child`` share
all of ``parent``'s blocks (a shared prompt prefix, or parallel samples of one prompt);
``free(seq)`` drops the sequence's hold. A block is free when no sequence holds it; a
sequence about to write into a block another sequence also holds first moves onto a fresh
block of its own (copy-on-write; the runner copies the filled rows when it sees the table
change). A refused ``allocate`` (False) or ``append`` (None) changes nothing.
"""
from __future__ import annotations

from collections import deque
from typing import Hashable

from ..validate import check_int


class RefCountedPool:
    """``num_blocks`` blocks of ``block_size`` token slots, shared by reference count."""

    def __init__(self, num_blocks: int, block_size: int):
        self.num_blocks = check_int("num_blocks", num_blocks, 1)
        self.block_size = check_int("block_size", block_size, 1)
        self._free: deque[int] = deque(range(num_blocks))
        self._ref = [0] * num_blocks            # sequences holding each block
        self._tables: dict[Hashable, list[int]] = {}
        self._lens: dict[Hashable, int] = {}    # tokens each sequence holds

    def num_free(self) -> int:
        """Blocks no sequence holds."""
        return len(self._free)

    def table(self, seq: Hashable) -> list[int]:
        """``seq``'s blocks, in token order (a copy)."""
        return list(self._tables[seq])

    def _take(self) -> int:
        block = self._free.popleft()
        self._ref[block] = 1
        return block

    def allocate(self, seq: Hashable, n_tokens: int) -> bool:
        """Blocks for a new sequence's first ``n_tokens`` tokens; False (and nothing
        changes) when too few blocks are free."""
        if seq in self._tables:
            raise ValueError(f"sequence {seq!r} already holds blocks")
        need = -(-check_int("n_tokens", n_tokens, 1) // self.block_size)
        if need > len(self._free):
            return False
        self._tables[seq] = [self._take() for _ in range(need)]
        self._lens[seq] = n_tokens
        return True

    def append(self, seq: Hashable) -> int | None:
        """Room for one more token of ``seq``: its cache slot, or None (nothing changes)
        when it needs a block and none is free."""
        table, n = self._tables[seq], self._lens[seq]
        row = n % self.block_size
        shared = row > 0 and self._ref[table[-1]] > 1   # writing would change another's K/V
        if row == 0 or shared:
            if not self._free:
                return None
            block = self._take()
            if shared:                                  # copy-on-write: leave the shared one
                self._ref[table[-1]] -= 1
                table[-1] = block
            else:
                table.append(block)
        self._lens[seq] = n + 1
        return table[-1] * self.block_size + row

    def fork(self, parent: Hashable, child: Hashable) -> None:
        """``child`` shares every block of ``parent`` (no block is taken)."""
        if child in self._tables:
            raise ValueError(f"sequence {child!r} already holds blocks")
        self._tables[child] = list(self._tables[parent])
        self._lens[child] = self._lens[parent]
        for block in self._tables[child]:
            self._ref[block] += 1

    def free(self, seq: Hashable) -> None:
        """Drop ``seq``'s hold; a block nobody holds any more is free again."""
        for block in self._tables.pop(seq):
            self._ref[block] -= 1
            if self._ref[block] == 0:
                self._free.append(block)
        del self._lens[seq]
