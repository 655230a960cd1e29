"""The KV-cache manager: a fixed pool of blocks of ``block_size`` token slots (vLLM's
paged KV). Pure Python, no torch: it only decides which slots a sequence owns; the model
runner keeps the tensors, ``num_blocks × block_size`` rows per layer.

Token ``i`` of a sequence lives in slot ``block_table[i // block_size] * block_size +
i % block_size``. The budget, in tokens, is ``num_blocks × block_size``; the manager never
hands out more (``peak_blocks`` records the high-water mark for tests and plots).

Prefix caching (``prefix_caching=True``, vLLM's automatic prefix caching): a *full* block is
named by a hash of its tokens and of the hash of the block before it, so one name means one
whole prefix. Computed full blocks are registered under their name; a new sequence whose
first blocks have registered names takes those blocks instead of recomputing them. Each
block has a reference count (how many sequences hold it). A block nobody holds keeps its
K/V and its name, and is *evictable*: it still counts as free, and is reused, least
recently released first, only when no never-used block is left.
"""
from __future__ import annotations

from collections import OrderedDict, deque

from ..validate import check_int
from .sequence import DecodeSequence


class KVBudgetExceeded(RuntimeError):
    """Raised when a caller asks for blocks the pool does not have (a scheduler bug)."""


def block_hash(parent: int | None, tokens) -> int:
    """Name of a full block: its tokens chained to the name of the block before it
    (``None`` for the first block). Python's hash of a tuple of ints is deterministic."""
    return hash((parent, tuple(tokens)))


class BlockManager:
    def __init__(self, num_blocks: int, block_size: int = 16, prefix_caching: bool = False):
        self.num_blocks = check_int("num_blocks", num_blocks, 1)
        self.block_size = check_int("block_size", block_size, 1)
        self.prefix_caching = bool(prefix_caching)
        self._free: deque[int] = deque(range(num_blocks))     # never used, or nameless
        self._evictable: OrderedDict[int, None] = OrderedDict()  # named, nobody holds: LRU
        self.ref = [0] * num_blocks                            # sequences holding each block
        self._name: dict[int, int] = {}                        # block -> its name
        self._by_name: dict[int, int] = {}                     # name -> block
        self.peak_blocks = 0
        self.hit_tokens = 0                                    # prompt tokens taken from cache
        self.evictions = 0

    @property
    def budget_tokens(self) -> int:
        return self.num_blocks * self.block_size

    @property
    def num_free(self) -> int:
        """Blocks a sequence could be given now (evictable cached blocks included)."""
        return len(self._free) + len(self._evictable)

    @property
    def used_blocks(self) -> int:
        """Blocks held by at least one sequence."""
        return self.num_blocks - self.num_free

    @property
    def cached_blocks(self) -> int:
        """Blocks registered under a name (held or evictable)."""
        return len(self._by_name)

    def blocks_for(self, n_tokens: int) -> int:
        """Blocks needed to hold ``n_tokens`` tokens."""
        return -(-n_tokens // self.block_size)

    def extra_blocks(self, seq: DecodeSequence, n_tokens: int) -> int:
        """Blocks ``seq`` still lacks to hold ``n_tokens`` tokens in total."""
        return max(0, self.blocks_for(n_tokens) - len(seq.block_table))

    def can_grow(self, seq: DecodeSequence, n_tokens: int) -> bool:
        return self.extra_blocks(seq, n_tokens) <= self.num_free

    def grow(self, seq: DecodeSequence, n_tokens: int) -> None:
        """Give ``seq`` enough blocks for ``n_tokens`` tokens in total."""
        need = self.extra_blocks(seq, n_tokens)
        if need > self.num_free:
            raise KVBudgetExceeded(
                f"sequence {seq.id} needs {need} more KV blocks, {self.num_free} free "
                f"of {self.num_blocks}")
        for _ in range(need):
            block = self._take()
            self.ref[block] = 1
            seq.block_table.append(block)
        self.peak_blocks = max(self.peak_blocks, self.used_blocks)

    def _take(self) -> int:
        if self._free:
            return self._free.popleft()
        block, _ = self._evictable.popitem(last=False)     # least recently released
        del self._by_name[self._name.pop(block)]
        self.evictions += 1
        return block

    def free(self, seq: DecodeSequence) -> None:
        """Drop ``seq``'s hold on its blocks; its cached tokens are gone for it. A named block
        nobody holds any more stays cached (evictable); the last blocks are released first,
        so they are evicted before the prefix they extend."""
        for block in reversed(seq.block_table):
            self.ref[block] -= 1
            if self.ref[block] < 0:
                raise KVBudgetExceeded(f"block {block} released more often than it was held")
            if self.ref[block] == 0:
                if block in self._name:
                    self._evictable[block] = None
                else:
                    self._free.append(block)
        seq.block_table = []
        seq.num_cached = 0

    def slots(self, seq: DecodeSequence, start: int, stop: int) -> list[int]:
        """Cache slots of ``seq``'s tokens ``start..stop-1``."""
        bs, table = self.block_size, seq.block_table
        return [table[i // bs] * bs + i % bs for i in range(start, stop)]

    # -- prefix caching ---------------------------------------------------------------
    def _names(self, seq: DecodeSequence, n_blocks: int) -> list[int]:
        """Names of (at least) ``seq``'s first ``n_blocks`` full blocks (memoised on it:
        the tokens of a full block never change)."""
        names, bs = seq.block_hashes, self.block_size
        while len(names) < n_blocks:
            i = len(names)
            names.append(block_hash(names[-1] if names else None,
                                    seq.token_slice(i * bs, (i + 1) * bs)))
        return names

    def prefix_hits(self, seq: DecodeSequence) -> list[int]:
        """Cached blocks that hold ``seq``'s leading full blocks, in order (none when caching
        is off). At least one token is left uncached, so the model has a row to sample."""
        if not self.prefix_caching or seq.block_table:
            return []
        hits = []
        k = (len(seq) - 1) // self.block_size
        for name in self._names(seq, k)[:k]:
            block = self._by_name.get(name)
            if block is None:
                break
            hits.append(block)
        return hits

    def free_after_hits(self, hits: list[int]) -> int:
        """Free blocks counted the way admission needs them: the hit blocks are taken out
        of the free pool (those that were evictable) and count as already held."""
        return self.num_free - sum(1 for b in hits if self.ref[b] == 0) + len(hits)

    def share(self, seq: DecodeSequence, hits: list[int]) -> None:
        """Give an empty ``seq`` the cached blocks ``hits`` (from ``prefix_hits``)."""
        if seq.block_table:
            raise ValueError(f"sequence {seq.id} already holds blocks: share before growing")
        for block in hits:
            if self.ref[block] == 0:
                del self._evictable[block]
            self.ref[block] += 1
            seq.block_table.append(block)
        seq.num_cached = len(hits) * self.block_size
        self.hit_tokens += seq.num_cached
        self.peak_blocks = max(self.peak_blocks, self.used_blocks)

    def commit(self, seq: DecodeSequence, before: int = 0) -> None:
        """Register the blocks of ``seq`` that became full and computed since it held
        ``before`` cached tokens (call after a step). A name already registered keeps its
        first block; ``seq``'s copy stays private."""
        if not self.prefix_caching:
            return
        bs = self.block_size
        full = min(seq.num_cached // bs, len(seq.block_table))
        for i in range(before // bs, full):
            name, block = self._names(seq, full)[i], seq.block_table[i]
            if name not in self._by_name and block not in self._name:
                self._by_name[name], self._name[block] = block, name
