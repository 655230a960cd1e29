"""Checks for notebook 06's packed-step exercises (re-exported by ``ex06``): ex06_8, the
positions and KV slots of a packed step (slot mapping through the block table), and ex06_9,
its ragged attention mask. References: ``labsupport.decoder.ragged`` and
``kvcache.slot_mapping``. Besides drawn plans, every check replays a workload through the
engine (``Engine(record_layout=True)``) and compares the answer with the steps it ran.
"""
from __future__ import annotations

import numpy as np

from ..decoder import Engine, SchedulerConfig
from ..decoder.kvcache import slot_mapping
from ..decoder.ragged import packed_mask
from ..decoder.stepsim import CostRunner
from .guard import bounded, case_rng, exercise_check, is_stub, require_callable
from .plain import describe, describe_error, plain
from .scheduler_parts import COST, drawn_requests


def attempt(ex: str, fn, *args, what: str = ""):
    """``bounded(ex, fn, *args)``, with a crash turned into a message naming the input."""
    try:
        return bounded(ex, fn, *args)
    except AssertionError:
        raise
    except Exception as err:
        if is_stub(ex, err):
            raise  # the release stub: "not attempted" (guard.exercise_check)
        raise AssertionError(f"{ex}: your function raised {describe_error(err)} "
                             f"{what}") from None


def engine_layouts(rng: np.random.Generator, n_steps: int = 12) -> list:
    """Layouts of real engine steps: a drawn workload under on-demand KV with small blocks
    and a small token budget, so steps mix decode rows with prefill chunks."""
    bs = int(rng.choice([2, 4, 8]))
    cfg = SchedulerConfig(max_seqs=int(rng.integers(3, 7)), admission="on_demand",
                          block_size=bs, kv_budget_tokens=bs * int(rng.integers(24, 48)),
                          max_tokens_per_step=int(rng.integers(8, 24)))
    eng = Engine(CostRunner(COST), cfg, clock="model", record_layout=True)
    reqs = drawn_requests(rng, 14, 30, 12)
    res = eng.run([([r.id + 1] * r.length, r.output_len, r.arrival, r.id) for r in reqs])
    mixed = [st.layout for st in res.steps if len(st.layout.rows) > 1]
    pick = rng.choice(len(mixed), size=min(n_steps, len(mixed)), replace=False)
    return [(mixed[i], bs) for i in sorted(pick)]


def _drawn_plan(rng: np.random.Generator) -> tuple[list, int]:
    """A plan of 1..6 sequences: (block table, cached, new) each, over a shuffled pool."""
    bs = int(rng.choice([1, 2, 4, 8, 16]))
    pool = [int(b) for b in rng.permutation(64)]
    rows = []
    for _ in range(int(rng.integers(1, 7))):
        cached = int(rng.integers(0, 40))
        new = 1 if rng.random() < 0.5 else int(rng.integers(2, 20))
        need = -(-(cached + new) // bs)
        if need > len(pool):
            break
        rows.append(([pool.pop() for _ in range(need)], cached, new))
    return rows, bs


# ---- ex06_8: positions and slots of a packed step -----------------------------------------

def step_slots_ref(rows, block_size: int) -> tuple[list[int], list[int]]:
    """The lab's answer: positions and cache slots of every token fed, packed."""
    pos, slots = [], []
    for table, cached, new in rows:
        pos += range(cached, cached + new)
        slots += slot_mapping(table, block_size, cached, cached + new)
    return pos, slots


def _slots_cases(hidden: bool):
    rng = case_rng("ex06_8", hidden)
    fixed = [] if hidden else [
        ([([7, 2], 3, 1), ([5], 0, 3), ([0, 9, 4], 9, 2)], 4),   # decode, prefill, chunk
        ([([3, 1, 6, 11], 12, 1), ([8, 2], 0, 5)], 4)]
    drawn = [_drawn_plan(rng) for _ in range(6 if hidden else 2)]
    from_engine = [([(r[3], r[2], r[1]) for r in lay.rows], bs)
                   for lay, bs in engine_layouts(rng, 10 if hidden else 3)]
    return fixed + drawn + from_engine


def _slots_hint(rows, bs, got_pos, got_slots, pos, slots) -> str:
    if got_pos != pos:
        if got_pos == [i for _, _, new in rows for i in range(new)]:
            return ("the positions restart at 0 for every sequence: a sequence's new tokens "
                    "come after its cached ones, at positions cached .. cached + new - 1")
        return ("positions: for each sequence in order, its new tokens sit at positions "
                "cached .. cached + new - 1")
    if got_slots == pos:
        return ("those are the positions, not the slots: the cache is paged, so position "
                "i lives in physical block block_table[i // block_size], at row "
                "i % block_size of it")
    if got_slots == [t[i] * bs + i % bs if i < len(t) else -1 for t, c, n in rows
                     for i in range(c, c + n)]:
        return ("index the block table with the block number i // block_size, not with the "
                "position i itself")
    if got_slots == [t[i // bs] + i % bs for t, c, n in rows for i in range(c, c + n)]:
        return ("a block holds block_size slots: the slot is block_table[i // block_size] "
                "* block_size + i % block_size")
    return ("slot of position i = block_table[i // block_size] * block_size + i % "
            "block_size, for each new token of each sequence, in packed order")


@exercise_check("ex06_8")
def check_ex06_8(obj, hidden: bool = False) -> None:
    """``obj(rows, block_size) -> (positions, slots)``; ``rows``: (block_table, cached, new)
    per sequence of the step, in packed order."""
    ex = "ex06_8"
    require_callable(ex, obj, "step_slots")
    for rows, bs in _slots_cases(hidden):
        call = f"step_slots({[(t, c, n) for t, c, n in rows]}, block_size={bs})"
        got = plain(ex, attempt(ex, obj, [(list(t), c, n) for t, c, n in rows], bs,
                                what=f"on {call}"))
        if type(got) is not tuple or len(got) != 2:
            raise AssertionError(f"{ex}: return a pair (positions, slots), got {describe(got)}")
        try:
            got_pos, got_slots = ([int(x) for x in np.asarray(v).ravel()] for v in got)
        except (TypeError, ValueError):
            raise AssertionError(f"{ex}: return (positions, slots) as two lists of ints, got "
                                 f"{got!r:.80}") from None
        pos, slots = step_slots_ref(rows, bs)
        if (got_pos, got_slots) == (pos, slots):
            continue
        if len(got_pos) != len(pos) or len(got_slots) != len(slots):
            raise AssertionError(f"{ex}: {call}: the step feeds {len(pos)} tokens (the sum of "
                                 f"new); you returned {len(got_pos)} positions and "
                                 f"{len(got_slots)} slots")
        raise AssertionError(f"{ex}: {call} returned positions {got_pos[:12]}, slots "
                             f"{got_slots[:12]}: {_slots_hint(rows, bs, got_pos, got_slots, pos, slots)}")


# ---- ex06_9: the ragged mask ----------------------------------------------------------------

def _mask_cases(hidden: bool):
    rng = case_rng("ex06_9", hidden)
    fixed = [] if hidden else [[(4, 1), (0, 3), (2, 2)], [(6, 1), (3, 1), (5, 1)],
                               [(0, 5), (0, 4)]]
    drawn = [[(int(rng.integers(0, 12)), 1 if rng.random() < 0.5 else int(rng.integers(2, 8)))
              for _ in range(int(rng.integers(1, 6)))] for _ in range(8 if hidden else 2)]
    from_engine = [lay.spans for lay, _ in engine_layouts(rng, 10 if hidden else 3)]
    return fixed + drawn + from_engine


def _mask_hint(spans, got: np.ndarray, want: np.ndarray) -> str:
    qs = [(b, cached, i) for b, (cached, new) in enumerate(spans) for i in range(new)]
    starts = np.cumsum([0] + [c + n for c, n in spans])
    for q, (b, cached, i) in enumerate(qs):
        lo, hi = starts[b], starts[b + 1]
        if got[q, :lo].any() or got[q, hi:].any():
            return (f"query {q} (sequence {b}) attends to another sequence's keys: the mask is "
                    "block-diagonal, every token sees only its own sequence")
        row, ref = got[q, lo:hi], want[q, lo:hi]
        if not row[:cached].all():
            return (f"query {q} (sequence {b}) misses some of its sequence's {cached} cached "
                    "tokens: a new token sees every cached token of its sequence")
        if not row[cached + i]:
            return f"query {q} (sequence {b}) must attend to itself (the diagonal is True)"
        if row[cached + i + 1:].any():
            return (f"query {q} (sequence {b}) sees later tokens of its own chunk: within a "
                    "sequence the mask is causal (keys up to the query's own position)")
        if (row != ref).any():
            break
    return ("rows: the new tokens, sequence after sequence; columns: each sequence's cached "
            "tokens, then its new ones, sequence after sequence")


@exercise_check("ex06_9")
def check_ex06_9(obj, hidden: bool = False) -> None:
    """``obj(spans) -> bool array [sum new, sum (cached + new)]``; ``spans``: (cached, new)
    per sequence of the step, in packed order."""
    ex = "ex06_9"
    require_callable(ex, obj, "ragged_mask")
    for spans in _mask_cases(hidden):
        got = plain(ex, attempt(ex, obj, [tuple(s) for s in spans],
                                what=f"on ragged_mask({spans})"))
        want = packed_mask(spans)
        try:
            arr = np.asarray(got)
        except Exception:
            arr = np.zeros(0)
        if arr.shape != want.shape:
            raise AssertionError(
                f"{ex}: ragged_mask({spans}) has shape {arr.shape}; it must be "
                f"{want.shape}: one row per new token (sum of new) and one column per token "
                "of each sequence's context, cached and new (sum of cached + new)")
        arr = arr.astype(bool)
        if (arr == want).all():
            continue
        raise AssertionError(f"{ex}: ragged_mask({spans}) is wrong: {_mask_hint(spans, arr, want)}")
