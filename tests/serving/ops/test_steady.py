"""The demo load (``SteadyLoad``): runs until stopped, one load process after another;
pauses and resumes; a set duration ends it; bad arguments name themselves."""
import time

import pytest

from labsupport.serving.ops.steady import SteadyLoad, clock
from svc_helpers import service, until  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(120)


def answered(svc) -> int:
    return svc.stats(window_s=0.2)["totals"]["ok"]


def test_runs_past_one_load_process_pauses_and_resumes(service):
    load = SteadyLoad(service.url, rate=20, chunk_s=1.5)
    try:
        n0 = answered(service)
        assert until(lambda: load.chunks >= 2, 20)  # the first process ended; a second took over
        assert until(lambda: answered(service) > n0, 20)
        assert "running" in load.describe() and "until stopped" in load.describe()
        load.pause()
        assert load.paused and not load.running and "paused at" in load.describe()
        assert service.wait_idle(10)
        n1, chunks = answered(service), load.chunks
        time.sleep(2.5)  # longer than a chunk: a paused load starts nothing
        assert answered(service) == n1 and load.chunks == chunks
        t_paused = load.elapsed_s
        time.sleep(0.3)
        assert load.elapsed_s == t_paused  # paused time is not running time
        load.resume()
        assert until(lambda: answered(service) > n1, 20)
        assert load.chunks >= chunks + 1
    finally:
        load.stop()
    assert "stopped after" in load.describe() and not load.running


def test_a_set_duration_ends_it_and_is_shown(service):
    load = SteadyLoad(service.url, rate=20, duration_s=2.0)
    try:
        assert "left of 00:02" in load.describe()
        assert until(lambda: "finished" in load.describe(), 20)
        assert load.elapsed_s >= 2.0 - 0.05 and load.chunks == 1
        load.resume()  # a finished load stays finished
        time.sleep(0.5)
        assert load.chunks == 1
    finally:
        load.stop()


def test_a_paused_start_sends_nothing_until_resumed(service):
    load = SteadyLoad(service.url, rate=20, paused=True)
    try:
        time.sleep(0.6)
        assert load.chunks == 0 and "paused at 00:00" in load.describe()
    finally:
        load.stop()


@pytest.mark.parametrize("kw,name", [({"rate": 0}, "rate"), ({"rate": 5, "duration_s": -1}, "duration_s"),
                                     ({"rate": 5, "chunk_s": 0.1}, "chunk_s"),
                                     ({"rate": 5, "pattern": "wave"}, "pattern"),
                                     ({"rate": 5, "min_tokens": 9, "max_tokens": 4}, "max_tokens")])
def test_bad_arguments_name_themselves(kw, name):
    with pytest.raises(ValueError, match=name):
        SteadyLoad("http://127.0.0.1:9", **kw)


def test_refuses_a_remote_url():
    with pytest.raises(ValueError, match="loopback"):
        SteadyLoad("http://example.com:80", rate=5)


def test_clock():
    assert [clock(s) for s in (0, 59.6, 61, 3600 + 62)] == ["00:00", "01:00", "01:01", "1:01:02"]
