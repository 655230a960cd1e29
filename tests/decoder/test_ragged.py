"""The packed (ragged) step: its layout is what the runner feeds, its mask is block-diagonal
and causal, and it is the very attention pattern the runner computes."""
import numpy as np
import pytest

from labsupport.decoder import Engine, SchedulerConfig
from labsupport.decoder.kvcache import BlockManager, slot_mapping
from labsupport.decoder.ragged import block_cells, layout, packed_mask, padded_mask
from labsupport.decoder.scheduler import StepPlan
from labsupport.decoder.sequence import DecodeSequence
from labsupport.decoder.stepsim import CostRunner


def test_packed_mask_is_block_diagonal_and_causal():
    m = packed_mask([(2, 1), (0, 3)])
    want = np.array([[1, 1, 1, 0, 0, 0],      # a decode row: its 2 cached keys and itself
                     [0, 0, 0, 1, 0, 0],      # a 3-token prefill chunk, causal
                     [0, 0, 0, 1, 1, 0],
                     [0, 0, 0, 1, 1, 1]], dtype=bool)
    assert (m == want).all()
    assert block_cells([(2, 1), (0, 3)]) == 3 + 9


def test_padded_mask_pads_every_row_to_the_longest():
    m = padded_mask([(2, 1), (0, 3)])
    assert m.shape == (2, 3, 3)
    assert m[0].tolist() == [[True, True, True], [False] * 3, [False] * 3]
    assert m.sum() == packed_mask([(2, 1), (0, 3)]).sum()


@pytest.mark.parametrize("bad", [[(0, 0)], [(-1, 2)]])
def test_bad_spans_are_named(bad):
    with pytest.raises(ValueError, match=r"spans\[0\]"):
        packed_mask(bad)


def test_slots_follow_the_block_table():
    assert slot_mapping([5, 2], 4, 2, 6) == [22, 23, 8, 9]
    kv = BlockManager(8, block_size=4)
    seq = DecodeSequence(0, list(range(7)), 3)
    kv.grow(seq, 7)
    assert kv.slots(seq, 0, 7) == slot_mapping(seq.block_table, 4, 0, 7)


def test_layout_packs_a_plan_sequence_by_sequence():
    kv = BlockManager(16, block_size=4)
    a, b = DecodeSequence(0, [1, 2, 3, 4, 5], 4), DecodeSequence(1, [7, 8, 9], 4)
    kv.grow(a, 6)
    a.num_cached, a.output = 5, [11]           # a decodes: feeds its token at position 5
    kv.grow(b, 2)
    plan = StepPlan()
    plan.add(a, 1)
    plan.add(b, 2)                              # b: the first chunk of its prompt
    lay = layout(plan, kv)
    assert lay.ids == [11, 7, 8] and lay.positions == [5, 0, 1]
    assert lay.slots == slot_mapping(a.block_table, 4, 5, 6) + slot_mapping(b.block_table, 4, 0, 2)
    assert lay.spans == [(5, 1), (0, 2)] and lay.last == [0, 2]


def test_the_engine_records_mixed_steps():
    eng = Engine(CostRunner(), SchedulerConfig(max_seqs=4, block_size=4, max_tokens_per_step=8),
                 clock="model", record_layout=True)
    res = eng.run([([1] * 3, 6, 0.0), ([2] * 3, 6, 0.0), ([3] * 12, 3, 1.0)])
    assert all(len(st.layout.ids) == st.tokens for st in res.steps)
    assert any({n for _, n in st.layout.spans} >= {1} and max(n for _, n in st.layout.spans) > 1
               for st in res.steps), "no step mixed decode rows with a prefill chunk"


def test_the_runner_attends_exactly_as_the_packed_mask_says():
    """Map every visible (query, key position) of the runner's attention calls back to the
    packed layout: it is the packed mask, cell for cell."""
    pytest.importorskip("torch")
    from labsupport.decoder import ModelRunner
    from labsupport.decoder.runner import tiny_gpt2
    eng = Engine(ModelRunner(tiny_gpt2(0), device="cpu"),
                 SchedulerConfig(max_seqs=5, block_size=4, max_tokens_per_step=12),
                 clock="cpu", record_layout=True)
    g = np.random.default_rng(3)
    for n, cap, t in ((3, 6, 0.0), (5, 6, 0.0), (4, 6, 0.0), (14, 3, 0.0), (9, 3, 0.0)):
        eng.add(g.integers(0, 1000, n).tolist(), cap, arrival=t)
    seen = 0
    while eng.has_work():
        plan = eng.sched.schedule(eng.now)
        lay = layout(plan, eng.sched.kv)
        _, _, _, groups, _ = eng.runner._meta(plan, eng.sched.kv)
        got = np.zeros_like(packed_mask(lay.spans))
        key0 = np.cumsum([0] + [c + n for c, n in lay.spans])
        owner = {first + i: (r, i) for r, (first, n, _, _) in enumerate(lay.rows) for i in range(n)}
        for q_idx, _, mask, keep, out_idx, (B, Q, NB) in groups:
            visible = (mask[:, 0] == 0).reshape(B * Q, -1).numpy()
            rows = range(B * Q) if keep is None else keep.tolist()
            for row, q in zip(rows, out_idx.tolist()):
                r, _ = owner[q]
                ctx = lay.spans[r][0] + lay.spans[r][1]
                cols = np.flatnonzero(visible[row])
                assert (cols < ctx).all(), "a query sees past its sequence's context"
                got[q, key0[r] + cols] = True
        assert (got == packed_mask(lay.spans)).all()
        seen += len(lay.rows) > 1 and len({n for _, n in lay.spans}) > 1
        tokens = eng.runner.run(plan, eng.sched.kv)
        eng.sched.postprocess(plan, tokens, eng.now)
    assert seen, "no step mixed decode rows and prefill chunks"
