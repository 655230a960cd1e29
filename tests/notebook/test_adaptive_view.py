"""Notebook 04's adaptive-batcher view: load steps, both runs, the SLO slider (no browser)."""
import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from labsupport.batching.adaptive import dispatch_at  # noqa: E402
from labsupport.costs import ServiceModel  # noqa: E402
from labsupport.notebook.adaptive_view import AdaptiveView, per_batch, step_traffic  # noqa: E402
from labsupport.sim.simulator import simulate  # noqa: E402


def test_step_traffic_follows_the_rates():
    reqs = step_traffic([100.0, 1000.0], 1000.0, seed=3)
    t = np.array([r.arrival for r in reqs])
    assert [r.id for r in reqs] == list(range(len(reqs))) and np.all(np.diff(t) >= 0)
    light, heavy = (t < 1000).sum(), (t >= 1000).sum()
    assert 60 < light < 140 and 850 < heavy < 1150 and t.max() < 2000


def test_per_batch_wait_is_the_oldest_requests():
    res = simulate(step_traffic([200.0], 500.0), "early", ServiceModel(), max_batch=4,
                   max_delay_ms=10.0)
    t, size, wait = per_batch(res)
    assert size.sum() == len(res.arrival) and np.all(wait >= 0) and np.all(wait <= 10.0 + 1e-9)


def test_view_draws_tracks_load_and_slider_redraws():
    view = AdaptiveView(dispatch_at, ServiceModel(), slo_ms=50.0, step_ms=500.0)
    assert view.last_png.startswith(b"\x89PNG") and "<table>" in view.readout.value
    p99 = view.last_p99["adaptive"]
    assert len(p99) == 4 and np.all(p99 <= 50.0)
    runs = view.results()
    t, size, _ = per_batch(runs["adaptive"])
    step = (t // 500.0).astype(int)
    assert size[step == 3].mean() > 3 * size[step == 0].mean()  # bigger batches under load
    before = view.last_png
    view.slo_ms.value = 12.0                    # tight: the light step still holds it
    assert view.last_png != before and view.last_p99["adaptive"][0] <= 12.0


def test_view_runs_a_students_rule():
    calls = []

    def rule(*args):
        calls.append(args)
        return dispatch_at(*args)
    AdaptiveView(rule, ServiceModel(), step_ms=200.0)
    assert calls and len(calls[0]) == 6
