"""The KV-cache manager: a fixed pool of blocks of ``block_size`` token slots (vLLM's
paged KV). Pure Python, no torch: it only decides which slots a sequence owns; the model
runner keeps the tensors, ``num_blocks × block_size`` rows per layer.

Token ``i`` of a sequence lives in slot ``block_table[i // block_size] * block_size +
i % block_size`` (``slot_mapping``). The budget, in tokens, is ``num_blocks × block_size``;
the manager never hands out more (``peak_blocks`` records the high-water mark). Paging
removes *external* fragmentation (any free block serves any sequence); the unused tail of
each sequence's last block is *internal* waste that remains (``metrics.kv_waste``).

Prefix caching (``prefix_caching=True``, vLLM's automatic prefix caching): a *full* block is
named by a hash of its tokens and of the hash of the block before it, so one name means one
whole prefix. Computed full blocks are registered under their name; a new sequence whose
first blocks have registered names takes those blocks instead of recomputing them. Each
block has a reference count (how many sequences hold it). A block nobody holds keeps its
K/V and its name, and is *evictable*: it still counts as free, and is reused, least
recently released first, only when no never-used block is left. The three rules are plain
functions (``block_names``, ``cached_prefix``, ``release``); ``lookup_fn`` lets a check
plug a student's lookup into the manager.
"""
from __future__ import annotations

from collections import OrderedDict, deque

from ..validate import check_int
from .sequence import DecodeSequence


class KVBudgetExceeded(RuntimeError):
    """Raised when a caller asks for blocks the pool does not have (a scheduler bug)."""


def block_hash(parent: int | None, tokens) -> int:
    """Name of a full block: its tokens chained to the name of the block before it
    (``None`` for the first block). Python's hash of a tuple of ints is the same in every
    process (``hash(None)`` is not before Python 3.12: the first block chains to -1, a
    value no hash takes)."""
    return hash((-1 if parent is None else parent, tuple(tokens)))


def slot_mapping(block_table: list[int], block_size: int, start: int, stop: int) -> list[int]:
    """Cache slots of a sequence's tokens at positions ``start..stop-1``: position ``i`` is
    row ``i % block_size`` of physical block ``block_table[i // block_size]``."""
    return [block_table[i // block_size] * block_size + i % block_size
            for i in range(start, stop)]


def block_names(tokens, block_size: int, parent: int | None = None) -> list[int]:
    """Names of the full blocks of ``tokens`` (a partial last block has none), each chained
    to the one before it, the first to ``parent``."""
    names = []
    for i in range(len(tokens) // block_size):
        parent = block_hash(parent, tokens[i * block_size:(i + 1) * block_size])
        names.append(parent)
    return names


def cached_prefix(tokens, block_size: int, by_name: dict[int, int]) -> list[int]:
    """The cached blocks (``by_name``: name -> block) holding the leading full blocks of
    ``tokens``, in order, up to the first block not cached. At least one token is left out,
    so the model has a row to sample the next token from."""
    hits = []
    for name in block_names(tokens[:(len(tokens) - 1) // block_size * block_size], block_size):
        block = by_name.get(name)
        if block is None:
            break
        hits.append(block)
    return hits


def release(block_table: list[int], ref: list[int], named, evictable: OrderedDict,
            free: deque) -> None:
    """Drop one sequence's hold on ``block_table``: each block's reference count goes down,
    last block first. A block nobody holds any more joins the end of the LRU queue
    ``evictable`` when it has a name (``named``: blocks registered in the prefix cache; it
    keeps its K/V for a later hit), else the ``free`` pool. Releasing the tail first puts it
    ahead of the prefix it extends, so the tail is evicted first."""
    for block in reversed(block_table):
        ref[block] -= 1
        if ref[block] < 0:
            raise KVBudgetExceeded(f"block {block} released more often than it was held")
        if ref[block] == 0:
            if block in named:
                evictable[block] = None
            else:
                free.append(block)


class BlockManager:
    lookup_fn = staticmethod(cached_prefix)   # the rule above; a check plugs in another

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
    def evictable_order(self) -> list[int]:
        """Cached blocks nobody holds, least recently released first: the next to go."""
        return list(self._evictable)

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
        if need == 0:          # holds them already (every decode step under ``reserve``)
            return
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
        so they are evicted before the prefix they extend (``release``)."""
        release(seq.block_table, self.ref, self._name, self._evictable, self._free)
        seq.block_table = []
        seq.num_cached = 0

    def slots(self, seq: DecodeSequence, start: int, stop: int) -> list[int]:
        """Cache slots of ``seq``'s tokens ``start..stop-1`` (``slot_mapping``)."""
        return slot_mapping(seq.block_table, self.block_size, start, stop)

    # -- prefix caching ---------------------------------------------------------------
    def _names(self, seq: DecodeSequence, n_blocks: int) -> list[int]:
        """Names of (at least) ``seq``'s first ``n_blocks`` full blocks (memoised on it:
        the tokens of a full block never change)."""
        names, bs = seq.block_hashes, self.block_size
        if len(names) < n_blocks:
            names += block_names(seq.token_slice(len(names) * bs, n_blocks * bs), bs,
                                 names[-1] if names else None)
        return names

    def prefix_hits(self, seq: DecodeSequence) -> list[int]:
        """Cached blocks that hold ``seq``'s leading full blocks, in order (none when caching
        is off; ``cached_prefix``)."""
        if not self.prefix_caching or seq.block_table:
            return []
        hits = self.lookup_fn(seq.tokens, self.block_size, dict(self._by_name))
        if len(hits) > (len(seq) - 1) // self.block_size or any(
                self._by_name.get(self._names(seq, i + 1)[i]) != b for i, b in enumerate(hits)):
            raise ValueError(f"the prefix lookup for sequence {seq.id} returned blocks "
                             f"{hits[:8]} that are not the cached blocks of its leading full "
                             "blocks, in order (leaving at least one token to compute)")
        return list(hits)

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
