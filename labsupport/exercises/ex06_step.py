"""Check for notebook 06's packed-step exercise: ex06_9, the
ragged attention mask of a packed step. Reference: ``labsupport.decoder.ragged``. Besides
drawn spans, the check replays a workload through the engine (``Engine(record_layout=True)``)
and compares the answer with the steps it ran. ``attempt`` (a student's call, a crash turned
into a message) is shared with the other notebook-06 checks.
"""
from __future__ import annotations

import numpy as np

from ..decoder import Engine, SchedulerConfig
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
