"""The dashboard's sliders show the service's live config: at start, after their own
change, after a refused change, and after a change made elsewhere (another cell)."""
import pytest

from labsupport.serving.demo.dashboard import Dashboard
from svc_helpers import service  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(60)


def changes(svc) -> float:
    return svc.metrics()["lab_config_changes_total"]


def test_sliders_follow_the_live_config(service):
    before = service.get("/config")
    dash = Dashboard(service.url, interval_s=0.1)
    try:
        dash.widget(start=False)
        w = dash._w
        knobs = lambda: {k: w[k].value for k in ("max_batch", "max_delay_ms", "policy")}  # noqa: E731
        assert knobs() == {k: before[k] for k in knobs()}
        service.configure(max_batch=1, max_delay_ms=12.5)  # "another cell" changes it
        n = changes(service)
        dash.poll()
        assert knobs()["max_batch"] == 1 and knobs()["max_delay_ms"] == 12.5
        assert "changed elsewhere" in w["status"].value
        assert changes(service) == n  # showing the live value posted nothing back
        w["max_batch"].value = 3  # a user moves the slider: the service follows
        assert service.get("/config")["max_batch"] == 3 and changes(service) == n + 1
        service.configure(max_batch=200)  # beyond the slider's range: the slider widens
        dash.poll()
        assert w["max_batch"].max >= 200 and w["max_batch"].value == 200
        with pytest.raises(ValueError, match="max_queue"):
            dash.configure(max_queue=0)
        assert knobs()["max_batch"] == 200 and service.get("/config")["max_batch"] == 200
        dash.start()  # the poller keeps them in step on its own
        service.configure(max_batch=2)
        import time
        deadline = time.monotonic() + 5
        while w["max_batch"].value != 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert w["max_batch"].value == 2
    finally:
        dash.stop()
        service.configure(**before)


def test_a_failed_poll_is_retried_and_stop_shows_the_live_config(service, monkeypatch):
    """A poll that times out (a swamped service) must not end the poller, or the sliders
    keep an old config; and once polling stops they still show the config of that moment."""
    import time

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
        w = dash._w
        monkeypatch.setattr(dash._client, "get", flaky_get)
        dash.start()
        service.configure(max_batch=2)
        deadline = time.monotonic() + 5
        while w["max_batch"].value != 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert failed and dash.running and w["max_batch"].value == 2
        service.configure(max_batch=3, max_delay_ms=7.5)  # then the poller is stopped at once
        dash.stop()
        assert not dash.running
        assert (w["max_batch"].value, w["max_delay_ms"].value) == (3, 7.5)
        assert "poller stopped" in w["status"].value
    finally:
        dash.stop()
        service.configure(**before)
