"""One state on the dashboard: sliders, readout, plot title and status line show the
service's live config after a change from a slider, from code (``configure``), from another
client and after ``stop()``; a burst of slider moves posts one change; every change is
marked on the plot; no draw before two samples; a failed poll is retried."""
import re
import time

import pytest

from labsupport.serving.demo.dashboard import Dashboard
from labsupport.serving.demo.dashboard_view import describe
from svc_helpers import service, until  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(90)
KNOBS = ("max_batch", "max_delay_ms", "policy")


def changes(svc) -> float:
    return svc.metrics()["lab_config_changes_total"]


def shown(dash) -> dict:
    """What each surface of the widget says the config is."""
    w = dash._w
    tiles = dict(re.findall(r"lab-tile-label'[^>]*>([^<]+)</div><div class='lab-tile-value'"
                            r"[^>]*>([^<]+)</div>", w["readout"].value))
    return {"sliders": {k: w[k].value for k in KNOBS},
            "readout": {"max_batch": int(tiles["max_batch"]),
                        "max_delay_ms": float(tiles["max_delay_ms"].removesuffix(" ms")),
                        "policy": tiles["policy"]},
            "title": dash.figure()._suptitle.get_text().replace("\n", " "),
            "status": w["status"].value}


def agrees(dash, cfg: dict) -> None:
    """Every surface shows ``cfg`` (the service's own config)."""
    s, want = shown(dash), {k: cfg[k] for k in KNOBS}
    assert s["sliders"] == want and s["readout"] == want, s
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
    assert bytes(dash._w["image"].value).startswith(b"\x89PNG")


def test_every_change_shows_everywhere(dash, service):
    dash.widget(start=False)
    agrees(dash, service.get("/config"))
    dash.configure(max_batch=3)                             # from code
    agrees(dash, service.get("/config"))
    service.configure(max_batch=1, max_delay_ms=12.5)       # another client
    n = changes(service)
    dash.refresh()                                          # one poll
    agrees(dash, service.get("/config"))
    assert "another client" in dash._w["status"].value
    assert changes(service) == n  # showing the service's value posted nothing back
    service.configure(max_batch=200)  # beyond the slider's range: the slider widens
    dash.refresh()
    assert dash._w["max_batch"].max >= 200
    agrees(dash, service.get("/config"))
    with pytest.raises(ValueError, match="max_queue"):
        dash.configure(max_queue=0)
    agrees(dash, service.get("/config"))
    assert "refused" in dash._w["status"].value


def test_the_poller_follows_another_client_and_stop_leaves_one_state(dash, service):
    dash.widget(start=True)
    service.configure(max_batch=2)
    assert until(lambda: dash._w["max_batch"].value == 2)
    service.configure(max_batch=5, max_delay_ms=7.5)  # then the poller is stopped at once
    dash.stop()
    assert not dash.running
    agrees(dash, service.get("/config"))
    assert "poller stopped" in dash._w["status"].value
    dash.configure(policy="window")  # the sliders still work without the poller
    agrees(dash, service.get("/config"))


def test_a_burst_of_slider_moves_posts_one_change(dash, service):
    dash.widget(start=True)
    n = changes(service)
    for v in (5, 6, 7, 8, 9):  # five keyboard steps, faster than the debounce
        dash._w["max_batch"].value = v
        time.sleep(0.02)
    assert until(lambda: service.get("/config")["max_batch"] == 9)
    time.sleep(3 * dash._moves.delay_s)
    assert changes(service) == n + 1 and dash.posts == 1
    assert until(lambda: any("batch→9" in text for _, text in dash.marks))
    t, _ = dash.marks[-1]
    assert dash.samples[0]["t"] <= t <= dash.samples[-1]["t"]  # on the service's clock


def test_a_slider_move_is_not_undone_by_a_poll_before_it_is_sent(service):
    """While a move waits for its debounce, polls must not set the slider back."""
    before = service.get("/config")
    dash = Dashboard(service.url, interval_s=0.1, debounce_s=1.0)
    try:
        dash.widget(start=True)
        dash._w["max_batch"].value = 11
        time.sleep(0.5)  # several polls, all still reporting the old config
        assert dash._w["max_batch"].value == 11
        assert until(lambda: service.get("/config")["max_batch"] == 11)
    finally:
        dash.stop()
        service.configure(**before)


def test_stop_sends_a_pending_move(dash, service):
    dash.widget(start=True)
    dash._moves.delay_s = 5.0
    dash._w["max_delay_ms"].value = 3.5
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
        assert until(lambda: dash._w["max_batch"].value == 2)
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
