"""One state on the dashboard: sliders, readout, plot title and status line show the
service's live config after a change from a slider, from code (``configure``), from another
client and after ``stop()``; a burst of slider moves posts one change; every change is
marked on the plot; no draw before two samples; a failed poll is retried. The demo load's
rate slider: a drag sets the rate once, every surface shows the load's rate, each new rate
is marked."""
import re
import time

import pytest

from labsupport.batching.config import in_use
from labsupport.serving.demo.dashboard import Dashboard
from labsupport.serving.demo.dashboard_widgets import KNOBS
from labsupport.serving.demo.dashboard_view import describe
from svc_helpers import service, until  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(90)


def changes(svc) -> float:
    return svc.metrics()["lab_config_changes_total"]


def shown(dash) -> dict:
    """What each surface of the widget says the config is."""
    w = dash.view.w
    tiles = dict(re.findall(r"lab-tile-label'[^>]*>([^<]+)</div><div class='lab-tile-value'"
                            r"[^>]*>([^<]+)</div>", w["readout"].value))
    return {"sliders": {k: w[k].value for k in KNOBS},
            "readout": {k: _tile(tiles[k]) for k in KNOBS if k in tiles},
            "title": dash.figure()._suptitle.get_text().replace("\n", " "),
            "status": w["status"].value}


def shown_text(html: str) -> str:
    """An HTML line's text as shown (its tooltip, the whole of a clipped line, left out)."""
    return re.sub(r"<[^>]+>", " ", re.sub(r" title='[^']*'", "", html))


def _tile(text: str):
    """A readout tile's value as a number where it is one (``5 ms`` → 5.0)."""
    text = text.removesuffix(" ms")
    try:
        return float(text)
    except ValueError:
        return text


def agrees(dash, cfg: dict) -> None:
    """Every surface shows ``cfg`` (the service's own config): every knob's widget, and a
    readout tile for each knob in use under its policy (no tile for an unused delay)."""
    s = shown(dash)
    assert s["sliders"] == {k: cfg[k] for k in KNOBS}, s
    assert s["readout"] == {k: cfg[k] for k in KNOBS if k in in_use(cfg)}, s
    assert s["title"] == describe(cfg), s["title"]
    assert describe(cfg) in s["status"], s["status"]


@pytest.fixture
def dash(service):
    before = service.get("/config")
    d = Dashboard(service.url, interval_s=0.2, debounce_s=0.2)
    yield d
    d.stop()
    service.configure(**before)


def test_first_draw_waits_for_two_samples(dash):
    dash.widget(start=False)
    assert len(dash.samples) >= 2 and dash.redraws == 1
    assert bytes(dash.view.w["image"].value).startswith(b"\x89PNG")


def test_every_change_shows_everywhere(dash, service):
    dash.widget(start=False)
    agrees(dash, service.get("/config"))
    dash.configure(max_batch=3)                             # from code
    agrees(dash, service.get("/config"))
    dash.configure(**service.get("/config"))  # every knob back (measure.restored): the
    assert "None" not in dash.view.w["status"].value  # status names no unset limit
    service.configure(max_batch=1, max_delay_ms=12.5)       # another client
    n = changes(service)
    dash.refresh()                                          # one poll
    agrees(dash, service.get("/config"))
    assert "another client" in dash.view.w["status"].value
    assert changes(service) == n  # showing the service's value posted nothing back
    service.configure(max_batch=200)  # beyond the slider's choices: it gains the value
    dash.refresh()
    assert dash.view.w["max_batch"].options[-1] == 200 and dash.view.w["max_batch"].value == 200
    agrees(dash, service.get("/config"))
    with pytest.raises(ValueError, match="max_queue"):
        dash.configure(max_queue=0)
    agrees(dash, service.get("/config"))
    assert "refused" in dash.view.w["status"].value


def test_the_poller_follows_another_client_and_stop_leaves_one_state(dash, service):
    dash.widget(start=True)
    service.configure(max_batch=2)
    assert until(lambda: dash.view.w["max_batch"].value == 2)
    service.configure(max_batch=5, max_delay_ms=7.5)  # then the poller is stopped at once
    dash.stop()
    assert not dash.running
    agrees(dash, service.get("/config"))
    assert "poller stopped" in dash.view.w["status"].value
    dash.configure(policy="window")  # the sliders still work without the poller
    agrees(dash, service.get("/config"))
    dash.start()  # a restart: the status line no longer says the poller stopped
    assert "poller stopped" not in dash.view.w["status"].value
    assert "restarted" in dash.view.w["status"].value


def test_a_stopped_service_is_not_shown_as_running():
    """Once the service refuses connections the poller ends and the status line says the
    config shown is the last one seen, not one that still runs."""
    from labsupport.costs import ServiceModel
    from labsupport.serving.ops.launcher import start_service
    svc = start_service("fake", max_batch=4, max_delay_ms=5.0, max_queue=16,
                        fake=ServiceModel(1.0, 0.1), timeout_s=30)
    dash = Dashboard(svc.url, interval_s=0.1)
    try:
        dash.widget(start=True)
        assert shown_text(dash.view.w["status"].value).count("service runs") == 1
        svc.stop()
        assert until(lambda: not dash.running)
        status = dash.view.w["status"].value
        assert "service ran (last seen)" in status and "service runs" not in status, status
    finally:
        dash.stop()
        svc.stop()


def test_lines_break_where_the_poller_was_stopped():
    """No straight line across the minutes without samples (it would read as a trend)."""
    import math
    from labsupport.serving.demo.dashboard_view import GAP_S, figure
    cfg = {"max_batch": 16, "max_delay_ms": 5.0, "policy": "work_conserving", "max_queue": 128}
    sample = lambda t, q: {"t": t, "queue_depth": q, "mean_batch": 1.0, "p50_ms": 5.0,  # noqa: E731
                           "p99_ms": 9.0, "throughput_rps": 10.0, "rejected_rps": 0.0}
    ts = [0.0, 1.5, 3.0, 3.0 + 3 * GAP_S, 4.5 + 3 * GAP_S]
    fig = figure([sample(t, q) for t, q in zip(ts, (0, 5, 10, 120, 125))], [], cfg)
    for ax in fig.axes:
        for line in ax.get_lines():
            xs, ys = list(line.get_xdata()), list(line.get_ydata())
            gaps = [i for i, y in enumerate(ys) if isinstance(y, float) and math.isnan(y)]
            assert len(gaps) == 1 and xs[gaps[0] - 1] == 3.0, (xs, ys)
    steady = figure([sample(t, 1) for t in ts[:3]], [], cfg)
    assert not any(math.isnan(y) for ax in steady.axes for ln in ax.get_lines()
                   for y in ln.get_ydata())


def test_only_the_recent_history_is_drawn():
    """Samples and marks older than ``HISTORY_S`` before the last sample are not drawn: a
    pause long ago takes no room on the time axis."""
    from labsupport.serving.demo.dashboard_view import HISTORY_S, figure
    cfg = {"max_batch": 16, "max_delay_ms": 5.0, "policy": "work_conserving", "max_queue": 128}
    sample = lambda t: {"t": t, "queue_depth": 1, "mean_batch": 1.0, "p50_ms": 5.0,  # noqa: E731
                        "p99_ms": 9.0, "throughput_rps": 10.0, "rejected_rps": 0.0}
    ts = [0.0, 1.5, 500.0] + [500.0 + 1.5 * k for k in range(1, 100)]
    fig = figure([sample(t) for t in ts], [(1.0, "batch→1"), (600.0, "batch→16")], cfg)
    xs = [x for ax in fig.axes for ln in ax.get_lines() for x in ln.get_xdata()]
    assert min(xs) >= ts[-1] - HISTORY_S and max(xs) == ts[-1]
    assert [t.get_text() for t in fig.axes[0].texts] == ["batch→16"]


def test_only_the_latest_changes_are_marked_and_named():
    """A burst of changes (a trainer moving knobs for a minute) leaves ``MAX_MARKS`` dotted
    lines per panel, the latest ones, each named without overlapping its neighbour."""
    from labsupport.serving.demo.dashboard_view import MAX_MARKS, figure
    cfg = {"max_batch": 16, "max_delay_ms": 5.0, "policy": "work_conserving", "max_queue": 128}
    sample = lambda t: {"t": t, "queue_depth": 1, "mean_batch": 1.0, "p50_ms": 5.0,  # noqa: E731
                        "p99_ms": 9.0, "throughput_rps": 10.0, "rejected_rps": 0.0}
    ts = [1.5 * k for k in range(80)]
    marks = [(10.0 + 10 * k, f"batch→{2 ** (k % 6)}") for k in range(10)]  # every 10 s
    fig = figure([sample(t) for t in ts], marks, cfg)
    dotted = [ln.get_xdata()[0] for ln in fig.axes[0].get_lines() if ln.get_linestyle() == ":"]
    assert sorted(dotted) == [m[0] for m in marks[-MAX_MARKS:]]
    assert [t.get_text() for t in fig.axes[0].texts] == [m[1] for m in reversed(marks[-MAX_MARKS:])]


def test_the_load_line_is_two_lines_whatever_it_says():
    """The load's state and the guard's last word, each one clipped line (the whole in its
    tooltip); a warning in red: the dashboard does not grow when the guard speaks."""
    from labsupport.serving.demo.dashboard_view import LINE_EM, load_html
    quiet = load_html("Poisson load 60 req/s · running 0:10", "", False)
    loud = load_html("Poisson load 60 req/s · running 0:10", "close other programs " * 20, True)
    for h in (quiet, loud):
        assert h.count(f"height:{LINE_EM}em") == 2 and h.count("-webkit-line-clamp:1") == 2
    assert "#b00" in loud and "#b00" not in quiet


def test_a_burst_of_slider_moves_posts_one_change(dash, service):
    dash.widget(start=True)
    n = changes(service)
    for v in (2, 4, 8, 16, 32):  # five keyboard steps, faster than the debounce
        dash.view.w["max_batch"].value = v
        time.sleep(0.02)
    assert until(lambda: service.get("/config")["max_batch"] == 32)
    time.sleep(3 * dash.view.moves.delay_s)
    assert changes(service) == n + 1 and dash.posts == 1
    assert until(lambda: any("batch→32" in text for _, text in dash.marks))
    t, _ = dash.marks[-1]
    assert dash.samples[0]["t"] <= t <= dash.samples[-1]["t"]  # on the service's clock


def test_a_slider_move_is_not_undone_by_a_poll_before_it_is_sent(service):
    """While a move waits for its debounce, polls must not set the slider back."""
    before = service.get("/config")
    dash = Dashboard(service.url, interval_s=0.1, debounce_s=1.0)
    try:
        dash.widget(start=True)
        dash.view.w["max_batch"].value = 32
        time.sleep(0.5)  # several polls, all still reporting the old config
        assert dash.view.w["max_batch"].value == 32
        assert until(lambda: service.get("/config")["max_batch"] == 32)
    finally:
        dash.stop()
        service.configure(**before)


def test_stop_sends_a_pending_move(dash, service):
    dash.widget(start=True)
    dash.view.moves.delay_s = 5.0
    dash.view.w["max_delay_ms"].value = 3.5
    dash.stop()
    assert service.get("/config")["max_delay_ms"] == 3.5
    agrees(dash, service.get("/config"))


def test_a_failed_poll_is_retried(service, monkeypatch):
    """A poll that times out (a swamped service) must not end the poller, or the sliders
    keep an old config."""
    import httpx
    before = service.get("/config")
    dash = Dashboard(service.url, interval_s=0.1)
    real_get, failed = dash._client.get, []

    def flaky_get(url, **kw):
        if url.endswith("/stats") and not failed:
            failed.append(url)
            raise httpx.ReadTimeout("the service took too long")
        return real_get(url, **kw)
    try:
        dash.widget(start=False)
        monkeypatch.setattr(dash._client, "get", flaky_get)
        dash.start()
        service.configure(max_batch=2)
        assert until(lambda: dash.view.w["max_batch"].value == 2)
        assert failed and dash.running
    finally:
        dash.stop()
        service.configure(**before)


def test_bad_arguments_name_themselves(service):
    with pytest.raises(ValueError, match="interval_s"):
        Dashboard(service.url, interval_s=0)
    with pytest.raises(ValueError, match="debounce_s"):
        Dashboard(service.url, debounce_s=-1)
    with pytest.raises(ValueError, match="loopback"):
        Dashboard("http://example.com:8000")


def test_change_labels():
    from labsupport.serving.demo.dashboard_view import change_label, mark_label
    old = {"max_batch": 16, "max_delay_ms": 5.0, "policy": "work_conserving", "max_queue": 128}
    new = {**old, "max_batch": 1, "max_delay_ms": 9.0, "policy": "window"}
    assert change_label(old, new) == "max_batch 16→1, max_delay_ms 5→9, policy work_conserving→window"
    assert mark_label(old, new) == "batch→1 delay→9 window"
    assert change_label(old, old) == mark_label(old, old) == ""


class _Load:
    """The part of ``SteadyLoad`` the dashboard drives (no traffic: only its state)."""
    paused = False
    rate, rate_changed_t = 20.0, None

    def pause(self):
        self.paused = True

    def resume(self):
        self.paused = False

    def describe(self):
        return "paused" if self.paused else "running"


def test_resume_load_brings_a_stopped_plot_back(service):
    """After ``stop()`` (notebook 07 §5 pauses the load and stops the plot), the one
    'resume load' button restarts both."""
    dash = Dashboard(service.url, interval_s=0.1, load=_Load())
    try:
        dash.widget(start=True)
        dash.view.w["pause"].value = True  # press 'pause load'
        dash.stop()
        assert dash.load.paused and not dash.running
        dash.view.w["pause"].value = False  # press 'resume load'
        assert not dash.load.paused and dash.running
        assert "restarted" in dash.view.w["status"].value
    finally:
        dash.stop()


def test_no_batch_is_not_a_batch_of_zero():
    """A window without batches (a paused load) shows no mean batch, not 0."""
    import math
    from labsupport.serving.demo.dashboard_view import figure, readout_html
    cfg = {"max_batch": 16, "max_delay_ms": 5.0, "policy": "work_conserving", "max_queue": 128}
    sample = lambda t, b: {"t": t, "queue_depth": 0, "batches": b,  # noqa: E731
                           "mean_batch": 2.0 if b else 0.0, "p50_ms": None, "p99_ms": None,
                           "throughput_rps": 0.0, "rejected_rps": 0.0}
    assert "0.0" not in readout_html(cfg, sample(1.0, 0)).split("mean batch")[1].split("p50")[0]
    assert "2.0" in readout_html(cfg, sample(1.0, 3))
    ys = figure([sample(1.0, 3), sample(2.5, 0)], [], cfg).axes[1].get_lines()[0].get_ydata()
    assert ys[0] == 2.0 and math.isnan(ys[1])


def test_a_latency_of_seconds_reads_in_seconds():
    """p50/p99 from 1 s on read "3.3 s", short enough for a tile at the presenter size
    ("3268 ms" was clipped there when max_batch=1 fell behind); below it, whole ms."""
    import re
    from labsupport.serving.demo.dashboard_view import readout_html
    cfg = {"max_batch": 1, "max_delay_ms": 5.0, "policy": "work_conserving", "max_queue": 128}

    def tile(p50):
        html = readout_html(cfg, {"t": 1.0, "queue_depth": 40, "batches": 9, "mean_batch": 1.0,
                                  "p50_ms": p50, "p99_ms": None, "throughput_rps": 9.0,
                                  "rejected_rps": 0.0}, presenter=True)
        return re.search(r">p50</div><div[^>]*>([^<]+)<", html).group(1)
    assert [tile(v) for v in (25.4, 999.4, 999.6, 3268.0, 12345.0, None)] == \
        ["25 ms", "999 ms", "1.0 s", "3.3 s", "12.3 s", "–"]


@pytest.mark.parametrize("presenter", [False, True])
def test_every_axis_label_stays_on_the_figure(presenter):
    """Seconds of latency (an overloaded service) must not push the latency label off the
    figure's left edge, at either size."""
    from labsupport.serving.demo.dashboard_view import figure
    cfg = {"max_batch": 16, "max_delay_ms": 5.0, "policy": "work_conserving", "max_queue": 128}
    ss = [{"t": 1.5 * i, "queue_depth": 128, "batches": 4, "mean_batch": 16.0,
           "p50_ms": 9000.0 + 500 * i, "p99_ms": 11000.0 + 500 * i, "throughput_rps": 40.0,
           "rejected_rps": 30.0} for i in range(8)]
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    fig = figure(ss, [], cfg, presenter=presenter)
    FigureCanvasAgg(fig).draw()  # as ``projector.png`` draws it
    width = fig.bbox.width
    for ax in fig.axes:
        for label in (ax.xaxis.label, ax.yaxis.label):
            box = label.get_window_extent()
            assert box.x0 >= 0 and box.x1 <= width, (label.get_text(), box, width)


def load_tile(dash) -> str:
    return re.search(r"lab-tile-label'[^>]*>load \(req/s\)</div><div class='lab-tile-value'"
                     r"[^>]*>([^<]+)</div>", dash.view.w["readout"].value).group(1) + " req/s"


def shows_rate(dash, rate: float) -> None:
    """Slider, readout, status line, plot title and load line all show ``rate``."""
    text = f"{rate:g} req/s"
    assert dash.view.w["load_rps"].value == rate and load_tile(dash) == text
    assert f"load {text}" in dash.view.w["status"].value
    assert dash.figure()._suptitle.get_text().replace("\n", " ").endswith(f"load {text}")
    assert shown_text(dash.view.w["load"].value).count(text) == 1


@pytest.fixture
def paused_load(service):
    """A real demo load, paused: its rate changes, it sends nothing."""
    from labsupport.serving.ops.steady import SteadyLoad
    load = SteadyLoad(service.url, rate=40, paused=True)
    yield load
    load.stop()


def test_a_drag_of_the_load_slider_sets_the_rate_once_and_marks_it(service, paused_load):
    dash = Dashboard(service.url, interval_s=0.2, debounce_s=0.2, load=paused_load)
    try:
        dash.widget(start=True)
        w = dash.view.w["load_rps"]
        assert (w.min, w.max, w.step) == (4.0, 80.0, 1.0)  # a tenth to twice the start
        shows_rate(dash, 40)
        n = changes(service)
        for v in (35.0, 30.0, 26.0, 22.0):  # a drag: faster than the debounce
            w.value = v
            time.sleep(0.02)
        assert until(lambda: paused_load.rate == 22.0)
        time.sleep(3 * dash.view.moves.delay_s)
        assert paused_load.rate_changes == 1  # one change for the whole drag
        assert changes(service) == n and dash.posts == 0  # the service's config untouched
        assert until(lambda: any(text == "load→22" for _, text in dash.marks))
        t, _ = dash.marks[-1]
        assert dash.samples[0]["t"] <= t <= dash.samples[-1]["t"]  # on the service's clock
        assert until(lambda: load_tile(dash) == "22 req/s")
        shows_rate(dash, 22)
        assert "set load 22 req/s here" in dash.view.w["status"].value
    finally:
        dash.stop()


def test_a_rate_set_from_code_shows_everywhere(service, paused_load):
    dash = Dashboard(service.url, interval_s=0.2, debounce_s=0.2, load=paused_load)
    try:
        dash.widget(start=False)
        paused_load.set_rate(95)  # another cell, beyond the slider: it widens
        dash.refresh()            # one poll
        shows_rate(dash, 95)
        assert dash.view.w["load_rps"].max >= 95 and "another cell" in dash.view.w["status"].value
        assert [text for _, text in dash.marks] == ["load→95"]
        dash.set_load_rate(2.5)   # through the dashboard, below the slider: it widens
        shows_rate(dash, 2.5)
        assert [text for _, text in dash.marks] == ["load→95", "load→2.5"]
        with pytest.raises(ValueError, match=r"rate must be a finite number in \[0.0, "):
            dash.set_load_rate(0)
        shows_rate(dash, 2.5)
        dash.stop()
        shows_rate(dash, 2.5)
    finally:
        dash.stop()


def test_no_load_no_load_slider(dash):
    dash.widget(start=False)
    assert "load_rps" not in dash.view.w and "load" not in dash.status()
    with pytest.raises(ValueError, match="rate: this dashboard has no load"):
        dash.set_load_rate(10)


def test_load_slider_steps():
    from labsupport.serving.demo.dashboard_view import load_range
    assert load_range(40) == (4.0, 80.0, 1.0)
    assert load_range(7.5) == (0.8, 15.0, 0.2)
    assert load_range(300) == (30.0, 600.0, 10.0)
    for rate in (1.3, 12, 61.3, 1600):
        lo, hi, step = load_range(rate)
        assert 0 < lo <= 0.1 * rate + step and hi >= 2 * rate
        assert 40 <= hi / step <= 101  # 1-2-5 steps


def test_numbers_from_a_window_that_spans_a_change_read_as_a_dash():
    """After Run All the readout must not show max_batch 16 beside §5's max_batch-1
    numbers: a sample whose window spans a config change, or of another config, is stale."""
    from labsupport.serving.demo.dashboard_view import fresh, readout_html
    cfg = {"max_batch": 16, "max_delay_ms": 5.0, "policy": "work_conserving", "max_queue": 128}
    s = {"t": 100.0, "window_s": 1.5, "config": cfg, "config_changed_t": 90.0,
         "queue_depth": 7, "mean_batch": 3.0, "batches": 4, "p50_ms": 12.0, "p99_ms": 30.0,
         "throughput_rps": 50.0, "rejected_rps": 0.0}
    assert fresh(s, cfg)
    assert not fresh({**s, "config_changed_t": 99.0}, cfg)  # the window mixes two settings
    assert not fresh(s, {**cfg, "max_batch": 1}) and not fresh(None, cfg)
    stale = readout_html(cfg, None)
    assert stale.count(">–<") == 6 and ">16<" in stale


def test_the_status_line_says_disconnected_when_nothing_updates_it():
    """The heartbeat: each update is new HTML (its CSS timer restarts); the disconnected
    line is there, hidden until the timer runs out, and then covers the status line in
    its own room: the dashboard's height is the same live or dead (two lines, whatever the
    text)."""
    from labsupport.serving.demo.dashboard_view import DEAD_AFTER_S, LINE_EM, status_html
    a, b = status_html("service runs", 1), status_html("service runs", 2)
    assert a != b and "disconnected" in a and f"{DEAD_AFTER_S:g}s forwards" in a
    assert "lab-status" in a and "visibility:hidden" in a and "position:absolute" in a
    long = status_html("config refused: " + "x " * 400, 3)
    assert long.count(f"height:{2 * LINE_EM}em") == 2 and "-webkit-line-clamp:2" in long
