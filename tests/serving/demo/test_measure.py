"""Clean measurements on the live service (notebook 07, ``demo-check``): the capacities
and the loads derived from them, and one setting measured from an idle service."""
import math
import threading
import time

import httpx
import pytest

from labsupport.serving.demo import measure
from labsupport.serving.demo.measure import Capacity
from svc_helpers import FIXED_MS, PER_ITEM_MS, service  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(180)


def test_loads_are_shares_of_the_measured_capacity():
    cap = Capacity(lone1=100.0, lone16=400.0, http1=40.0, http16=90.0)
    assert cap.gain == pytest.approx(2.25)
    assert cap.demo_rate == pytest.approx(60.0)  # 1.5 x http1 = http16 / 1.5
    assert cap.demo_rate / cap.http1 == pytest.approx(cap.http16 / cap.demo_rate)
    assert cap.light_rate == 4.0 and cap.burst_rate == 400.0
    assert cap.service_ms == 10.0 and cap.window_ms == 40.0  # 4 forward passes
    assert Capacity(1000, 4000, 500, 900).window_ms == 10     # never below the slider's 10
    assert Capacity(5, 20, 4, 9).window_ms == 50              # nor above its 50
    plan = "\n".join(cap.plan())
    assert "60 req/s" in plan and "1.50x" in plan and "400 req/s" in plan
    weak = "\n".join(Capacity(100, 110, 40, 44).plan())
    assert "only 1.10x" in weak and "look alike" in weak
    assert set(cap.json()) >= {"gain", "demo_rate", "light_rate", "window_ms", "burst_rate"}


def test_capacity_of_the_fake_model(service):
    cap = measure.measure_capacity(service, seconds=1.0)
    one = 1000.0 / (FIXED_MS + PER_ITEM_MS)  # the fake model sleeps this long per text
    assert 0 < cap.http1 <= 1.05 * one and 0 < cap.lone1 <= 1.05 * one
    assert cap.http16 > cap.http1  # a sleep-bound model gains from batches
    assert service.get("/config")["max_batch"] == 4  # the module's config is restored
    assert service.wait_idle(1)


def test_clean_run_starts_from_an_idle_service_and_leaves_it_idle(service):
    """A backlog left by an earlier cell drains before the knob is set and the load starts;
    the row covers the window after the warm-up; the service is idle afterwards."""
    before = service.get("/config")
    service.configure(max_batch=1)
    backlog = [threading.Thread(target=lambda: httpx.post(service.url + "/embed",
                                                          json={"input": "x y z"}, timeout=30))
               for _ in range(12)]
    for t in backlog:
        t.start()
    deadline = time.monotonic() + 10
    while service.get("/healthz")["in_flight"] < 2:  # a backlog is there when the cell starts
        assert time.monotonic() < deadline
        time.sleep(0.01)
    seen = []

    def configure(**knobs):
        seen.append(service.get("/healthz"))  # what the service held when the knob was set
        return service.configure(**knobs)
    try:
        row = measure.clean_run(service, rate=10.0, seconds=1.0, warmup_s=0.5,
                                configure=configure, max_batch=4)
    finally:
        for t in backlog:
            t.join()
        service.configure(**before)
    assert seen and seen[0]["queue_depth"] == 0 and seen[0]["in_flight"] == 0
    assert row["max_batch"] == 4 and row["offered req/s"] == 10.0
    assert row["completed req/s"] > 0 and not math.isnan(row["p50_ms"])
    h = service.get("/healthz")
    assert h["queue_depth"] == 0 and h["in_flight"] == 0


def test_bad_arguments_name_themselves(service):
    with pytest.raises(ValueError, match="rate"):
        measure.clean_run(service, rate=0)
    with pytest.raises(ValueError, match="seconds"):
        measure.clean_run(service, rate=5, seconds=0)
    with pytest.raises(ValueError, match="n must be"):
        measure.backlog_rate(service, 1, n=1)
