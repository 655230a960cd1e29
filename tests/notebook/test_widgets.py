"""The notebook-02 explorer: sliders re-simulate and redraw (no browser; see the browser tests)."""
import pytest

pytest.importorskip("ipywidgets")

from labsupport.notebook.explorer import BatchingExplorer  # noqa: E402


@pytest.fixture(scope="module")
def explorer():
    return BatchingExplorer(n=1500, max_batch=16, max_delay_ms=20.0, rate_per_s=200.0,
                            policy="window")


def test_descriptions_and_style(explorer):
    sliders = [explorer.max_batch, explorer.max_delay_ms, explorer.rate_per_s,
               explorer.burstiness]
    assert [s.description for s in sliders] == ["max_batch", "max_delay_ms", "rate_per_s",
                                                "burstiness"]
    assert all(s.style.description_width == "initial" for s in sliders)
    assert set(explorer.policy.options) >= {"naive", "window", "early", "work_conserving"}


def test_slider_changes_redraw(explorer):
    before_text, before_png = explorer.readout.value, explorer.last_png
    assert "p99" in before_text and before_png.startswith(b"\x89PNG")
    explorer.max_delay_ms.value = 60.0           # a longer window: every request waits more
    assert explorer.readout.value != before_text
    assert explorer.last_png != before_png
    assert explorer.last_summary["p50_ms"] > 40.0


def test_policy_and_load_move_the_numbers(explorer):
    explorer.max_delay_ms.value = 20.0
    explorer.policy.value = "window"
    window_p50 = explorer.last_summary["p50_ms"]
    explorer.policy.value = "work_conserving"    # no waiting on an idle model
    assert explorer.last_summary["p50_ms"] < window_p50
    explorer.rate_per_s.value = 100.0
    light = explorer.last_summary["throughput_rps"]
    explorer.rate_per_s.value = 400.0
    assert explorer.last_summary["throughput_rps"] > 1.5 * light
    explorer.burstiness.value = 8.0
    assert explorer.last_summary["p99_ms"] > 0
