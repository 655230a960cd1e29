"""The demo load (``SteadyLoad``): runs until stopped, one load process after another;
pauses and resumes; a new rate takes over at once and loses no request; a set duration
ends it; bad arguments name themselves."""
import time

import pytest

from labsupport.serving.ops.steady import MAX_RATE, SteadyLoad, clock
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


def handled(svc) -> int:
    """Requests the service has answered in any way (200, 429, errors) so far."""
    return sum(svc.stats(window_s=0.2)["totals"].values())


def sends_at(load) -> float:
    """The rate the running load process was started with (its ``--rate``)."""
    args = load._handle.proc.args
    return float(args[args.index("--rate") + 1])


def test_a_new_rate_retimes_the_running_process_and_no_request_is_lost(service):
    """A new rate within what the running process holds requests for retimes it (same
    process, its rate file says the new rate); a rate beyond that ends it cleanly (what it
    sent is answered and counted) and the next process starts at the new rate; the service
    saw every request once."""
    n0 = handled(service)
    load = SteadyLoad(service.url, rate=30)
    try:
        assert until(lambda: answered(service) > 0 and load.pid is not None, 20)
        assert until(lambda: handled(service) > n0 + 5, 20)
        pid = load.pid
        load.set_rate(60)  # near the service's capacity: requests are in flight right now
        assert load.rate == 60 and load.rate_changes == 1 and "60 req/s" in load.describe()
        assert load.retimes == 1 and load.chunks == 1 and load.pid == pid
        assert float(load._rate_file.read_text()) == 60
        sent = handled(service)
        assert until(lambda: handled(service) > sent + 20, 20)  # it keeps sending
        assert load.pid == pid and load.chunks == 1
        load.set_rate(60)  # the same rate: nothing to do
        assert load.rate_changes == 1 and load.retimes == 1
        load.set_rate(1000)  # beyond what this process holds requests for: a new one
        assert until(lambda: load.chunks == 2 and load.pid is not None, 20)
        assert load.pid != pid and sends_at(load) == 1000 and load.retimes == 1
        assert until(lambda: load.totals["sent"] > 0, 20)  # the first one's summary is in
        first = dict(load.totals)
        assert first["errors"] == 0 and first["ok"] + first["rejected"] == first["sent"]
        load.set_rate(40)  # back within the second process's requests: retimed
        assert load.retimes == 2 and load.chunks == 2
        assert until(lambda: handled(service) - n0 > first["sent"] + 5, 20)  # the second sends
    finally:
        load.stop()
    t = load.totals
    assert load.unreported == 0 and t["errors"] == 0 and t["sent"] > first["sent"]
    assert t["ok"] + t["rejected"] == t["sent"]
    assert until(lambda: handled(service) - n0 == t["sent"], 10), (handled(service) - n0, t)
    assert not load._rate_file.exists()


def test_a_new_rate_while_paused_applies_on_resume(service):
    load = SteadyLoad(service.url, rate=20, paused=True)
    try:
        load.set_rate(7.5)
        time.sleep(0.6)
        assert load.chunks == 0 and load.describe().startswith("Poisson load 7.5 req/s · paused")
        load.resume()
        assert until(lambda: load.pid is not None, 20)
        assert sends_at(load) == 7.5 and load.chunks == 1
    finally:
        load.stop()
    assert load.unreported == 0 and load.totals["errors"] == 0


@pytest.mark.parametrize("bad", [0, -3, float("nan"), float("inf"), 2 * MAX_RATE, "fast", True])
def test_a_bad_new_rate_names_itself_and_changes_nothing(bad):
    load = SteadyLoad("http://127.0.0.1:9", rate=5, paused=True)
    try:
        with pytest.raises(ValueError,
                           match=rf"rate must be a finite number in \[0.0, {int(MAX_RATE)}"):
            load.set_rate(bad)
        assert load.rate == 5 and load.rate_changes == 0
    finally:
        load.stop()


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
