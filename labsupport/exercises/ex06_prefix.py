"""Check for notebook 06's prefix-cache exercise: ex06_10, the
lookup along the hash chain. Reference: ``kvcache.cached_prefix``. The check tries drawn
caches directly, then plugs the function into the engine's ``BlockManager`` and replays
shared-prefix workloads step by step (``scheduler_parts.compare``).
"""
from __future__ import annotations

import numpy as np

from ..decoder.kvcache import block_names, cached_prefix
from ..decoder.workload import shared_prefix_requests
from .ex06_step import attempt
from .guard import case_rng, exercise_check, require_callable
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
