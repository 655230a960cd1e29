"""Timeline plots: panels of runs of different lengths share the longest run's x range, and
the block table shows who holds which KV block."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from labsupport.decoder import Engine, SchedulerConfig  # noqa: E402
from labsupport.decoder.stepsim import CostRunner, simulate_steps  # noqa: E402
from labsupport.decoder.timeline import block_grid, plot_blocks, plot_timelines  # noqa: E402
from labsupport.traffic import Request  # noqa: E402


def test_every_panel_spans_the_longest_run():
    reqs = [Request(i, 0.0, 4, 2 + 9 * (i % 4)) for i in range(24)]
    runs = {m: simulate_steps(reqs, SchedulerConfig(mode=m, max_seqs=4)) for m in ("continuous",
                                                                                "request")}
    n = {m: len(r.steps) for m, r in runs.items()}
    assert n["request"] > n["continuous"] + 10      # the case that sharex used to cut
    axes = plot_timelines(runs)
    for ax in axes:
        assert ax.get_xlim() == (-0.5, max(n.values()) - 0.5)
    image = axes[1].get_images()[0]                 # the request-level run drawn in full
    assert image.get_extent()[1] == n["request"] - 0.5
    plt.close("all")


def test_block_grid_marks_shared_prefix_blocks():
    eng = Engine(CostRunner(), SchedulerConfig(max_seqs=2, block_size=4, kv_budget_tokens=64,
                                               prefix_caching=True), clock="model",
                 record_blocks=True)
    res = eng.run([(list(range(12)), 20, 0.0), (list(range(12)) + [99], 3, 2.0)])
    grid = block_grid(res)
    assert grid.shape == (16, len(res.steps))
    assert (grid == -2).any(), "the shared prefix blocks should show as shared"
    assert res.steps[-1].kv_tokens == 0 and max(st.kv_tokens for st in res.steps) > 0
    plot_blocks(res)
    plt.close("all")
    with pytest.raises(ValueError, match="record_blocks"):
        block_grid(simulate_steps([Request(0, 0.0, 3, 2)]))


def test_block_table_marks_preemptions_and_has_a_legend():
    reqs = [Request(i, 0.2 * i, 6, 30) for i in range(8)]
    eng = Engine(CostRunner(), SchedulerConfig(max_seqs=6, admission="on_demand", block_size=4,
                                               kv_budget_tokens=96), clock="model",
                 record_blocks=True)
    res = eng.run([(r_list, r.output_len, r.arrival) for r in reqs for r_list in [[r.id + 1] * 6]])
    hit = sum(1 for st in res.steps if st.preempted)
    assert hit > 0, "the budget should force a preemption"
    ax = plot_blocks(res)
    markers = [ln for ln in ax.get_lines() if ln.get_marker() == "v"]
    assert len(markers) == 1 and len(markers[0].get_xdata()) == hit
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[-1] == f"preemption ({hit})" and "free" in labels
    plt.close("all")
