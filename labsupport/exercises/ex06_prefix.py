"""Checks for notebook 06's prefix-cache exercises (re-exported by ``ex06``): ex06_10, the
lookup along the hash chain, and ex06_11, releasing a sequence's blocks (reference counts,
then the LRU queue of cached blocks). References: ``kvcache.cached_prefix`` and
``kvcache.release``. Each check tries drawn cases directly, then plugs the function into the
engine's ``BlockManager`` and replays shared-prefix workloads step by step
(``scheduler_parts.compare``).
"""
from __future__ import annotations

import copy
from collections import OrderedDict, deque

import numpy as np

from ..decoder.kvcache import block_names, cached_prefix, release
from ..decoder.workload import shared_prefix_requests
from .ex06_step import attempt
from .guard import case_rng, exercise_check, require_callable, driver
from .plain import describe, plain
from .scheduler_parts import compare


def _workloads(rng: np.random.Generator, n: int) -> list:
    """Shared-prefix traffic under a KV budget tight enough to evict cached blocks."""
    out = []
    for _ in range(n):
        bs = int(rng.choice([4, 8]))
        reqs = shared_prefix_requests(int(rng.integers(12, 20)), int(rng.integers(2, 5)) * bs,
                                      prefixes=int(rng.integers(2, 4)), suffix_len=(1, 2 * bs),
                                      output_len=(1, 12), gap_ms=1.0,
                                      seed=int(rng.integers(2 ** 31)))
        longest = max(r.length + r.output_len for r in reqs)
        budget = bs * (-(-longest // bs) + int(rng.integers(2, 6)))
        out.append((reqs, dict(max_seqs=int(rng.integers(2, 5)), kv_budget_tokens=budget,
                               block_size=bs, max_tokens_per_step=int(rng.integers(12, 40)),
                               prefix_caching=True, admission="on_demand")))
    return out


# ---- ex06_10: the prefix-cache lookup --------------------------------------------------------

def _registry(rng: np.random.Generator, bs: int):
    """A cache that registered a few sequences' full blocks (some evicted since), and
    queries that share their prefixes in the ways that matter."""
    vocab = 50
    heads = [rng.integers(0, vocab, int(rng.integers(lo, 5)) * bs).tolist() for lo in (2, 3)]
    by_name, next_block = {}, iter(rng.permutation(1000).tolist())
    for head in heads:
        for name in block_names(head, bs):
            by_name.setdefault(name, next(next_block))
    del by_name[block_names(heads[1], bs)[1]]  # an evicted middle block: the chain breaks
    twin = heads[1][bs:2 * bs]               # the same tokens after another parent
    queries = [heads[0] + rng.integers(0, vocab, int(rng.integers(1, bs + 3))).tolist(),
               list(heads[0]),               # exactly cached: one token must stay
               heads[0][:bs] + twin + heads[0][2 * bs:],
               heads[1] + [1, 2, 3],
               heads[0][:bs + int(rng.integers(1, bs))],
               rng.integers(0, vocab, 3 * bs).tolist()]
    return by_name, queries


def _lookup_hint(tokens, bs, by_name, got, want) -> str:
    names = block_names(tokens, bs)
    if got == [names[i] for i in range(len(got))]:
        return "return the cached BLOCKS (the values of by_name), not their names"
    if len(got) > len(want) and got[:len(want)] == want:
        if len(want) == (len(tokens) - 1) // bs and len(tokens) % bs == 0:
            return ("leave at least one token uncached (look up only the first "
                    "(len(tokens) - 1) // block_size blocks): the model needs a row to "
                    "sample the next token from")
        return "stop at the first block that is not cached: the chain breaks there"
    if len(got) < len(want) and got == want[:len(got)]:
        return ("each block's name is block_hash(parent, its tokens), parent = the previous "
                "block's NAME (None for the first): chain the names, so one name stands for "
                "the whole prefix")
    return ("walk the full blocks in order: name = block_hash(parent, tokens of the block), "
            "parent = the name before (None first); keep by_name[name] while it is cached")


def _blocks(ex: str, got) -> list[int]:
    """The blocks an answer returned, as plain ints (AssertionError otherwise)."""
    got = plain(ex, got, "your blocks")
    if type(got) not in (list, tuple) or not all(type(b) is int for b in got):
        raise AssertionError(f"{ex}: return a list of blocks (ints), got {describe(got)}")
    return list(got)


@exercise_check("ex06_10")
def check_ex06_10(obj, hidden: bool = False) -> None:
    """``obj(tokens, block_size, by_name) -> [block, ...]``: the cached blocks holding the
    leading full blocks of ``tokens``."""
    ex = "ex06_10"
    require_callable(ex, obj, "prefix_hits")
    rng = case_rng(ex, hidden)
    for _ in range(4 if hidden else 2):
        bs = int(rng.choice([2, 3, 4, 8]))
        by_name, queries = _registry(rng, bs)
        for tokens in queries:
            want = cached_prefix(tokens, bs, by_name)
            call = f"prefix_hits({tokens[:24]}{' ...' if len(tokens) > 24 else ''}, block_size={bs}, by_name)"
            got = _blocks(ex, attempt(ex, obj, list(tokens), bs, dict(by_name),
                                      what=f"on {call}"))
            if got != want:
                raise AssertionError(f"{ex}: {call} returned {got}, the cache holds {want}: "
                                     f"{_lookup_hint(tokens, bs, by_name, got, want)}")

    def rule(tokens, block_size, by_name):
        return _blocks(ex, attempt(ex, obj, list(tokens), block_size, by_name))
    for reqs, knobs in _workloads(rng, 2 if hidden else 1):
        compare(ex, reqs, knobs, lambda a, b: "A sequence took other cached blocks than the "
                "lab's lookup gives it", cache_hint="Check the lookup on shared prefixes",
                lookup_fn=rule)


# ---- ex06_11: releasing blocks: reference counts and the LRU queue --------------------------

def _state(rng: np.random.Generator):
    """A pool mid-run: held blocks (some shared), named ones, an LRU queue and a free pool."""
    n = int(rng.integers(8, 20))
    blocks = rng.permutation(n).tolist()
    k_free, k_lru = int(rng.integers(0, 3)), int(rng.integers(0, 3))
    free, lru, held = blocks[:k_free], blocks[k_free:k_free + k_lru], blocks[k_free + k_lru:]
    ref = [0] * n
    for b in held:
        ref[b] = int(rng.choice([1, 1, 2, 3]))
    named = {b for b in held + lru if rng.random() < 0.6}
    table = [b for b in held if rng.random() < 0.7] or held[:1]
    return table, ref, named, OrderedDict((b, None) for b in lru), deque(free)


def _release_hint(table, ref0, named, got, want) -> str:
    g_ref, g_lru, g_free = got
    w_ref, w_lru, w_free = want
    if g_ref != w_ref:
        if all(g_ref[b] == ref0[b] for b in table):
            return "each block of the table loses one reference: ref[block] -= 1"
        return "subtract exactly one reference per block of the table"
    if set(g_lru) == set(w_lru) and set(g_free) == set(w_free):
        return ("release the LAST block first (reversed(block_table)): the tail of a "
                "sequence joins the LRU queue before its prefix, so it is evicted first")
    back = [b for b in table if w_ref[b] == 0]
    if any(b in g_free or b in g_lru for b in table if w_ref[b] > 0):
        return ("a block another sequence still holds (ref > 0 after the release) stays "
                "where it is: only a block whose count reaches 0 leaves")
    if any(b in g_free for b in back if b in named):
        return ("a named (cached) block keeps its K/V: append it to the end of evictable, "
                "so a later request with the same prefix can still find it")
    if any(b in g_lru for b in back if b not in named):
        return ("a block with no name can never be found again: return it to free, not to "
                "the LRU queue")
    return ("for each block, last first: ref -= 1; at 0, named -> end of evictable, else "
            "-> end of free")


def _released(ex: str, obj, table, ref, named, evictable, free, what: str) -> tuple:
    """Beside the student's code: their release on the pool, and what it left in ``ref``,
    ``evictable`` and ``free`` (as lists, for the judge)."""
    attempt(ex, obj, table, ref, named, evictable, free, what=what)
    return list(ref), list(evictable), list(free)


@exercise_check("ex06_11")
def check_ex06_11(obj, hidden: bool = False) -> None:
    """``obj(block_table, ref, named, evictable, free)``: updates ``ref``, ``evictable``
    (an OrderedDict, LRU first) and ``free`` (a deque) in place."""
    ex = "ex06_11"
    require_callable(ex, obj, "release_blocks")
    rng = case_rng(ex, hidden)
    for _ in range(30 if hidden else 8):
        table, ref, named, lru, free = _state(rng)
        want = copy.deepcopy((ref, lru, free))
        release(list(table), *want[:1], set(named), *want[1:])
        got = copy.deepcopy((ref, lru, free))
        call = (f"release_blocks({table}, ref={ref}, named={sorted(named)}, "
                f"evictable={list(lru)}, free={list(free)})")
        left = driver(ex, _released, ex, obj, list(table), got[0], set(named), got[1],
                       got[2], f"on {call}")
        as_lists = [tuple(plain(ex, list(x), "what you left in ref, evictable, free")
                          for x in state) for state in (left, want)]
        if as_lists[0] != as_lists[1]:
            raise AssertionError(
                f"{ex}: {call} left ref={as_lists[0][0]}, evictable={as_lists[0][1]}, "
                f"free={as_lists[0][2]}; want ref={as_lists[1][0]}, evictable="
                f"{as_lists[1][1]}, free={as_lists[1][2]}. "
                f"{_release_hint(table, ref, named, as_lists[0], as_lists[1])}")
    for reqs, knobs in _workloads(rng, 2 if hidden else 1):
        compare(ex, reqs, knobs, lambda a, b: "Blocks went back to another place (free, "
                "evictable) or in another order than the lab's release puts them",
                cache_hint="Named blocks join the END of evictable, last block first",
                release_fn=lambda *args: attempt(ex, obj, *args))
