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


def test_the_demo_load_keeps_its_margin_to_16():
    """Some gain (82/144, 1.76x): the geometric middle (108.7) would sit within 25 % of what
    16 serves; the load is lowered to 0.75 x 16, still 1.1 x above 1. Much gain: the
    middle. Too little gain for both margins (80/100, as on a busy laptop): the load keeps
    16's margin (16 never shows a backlog it should not), and the capacity says on screen
    that 1 may keep up too and what to do."""
    some = Capacity(55, 200, 82, 144)
    assert some.demo_rate == 108.0 and some.demo_rate >= measure.ABOVE_1 * some.http1
    assert some.contrast_ok and some.warning == ""
    assert Capacity(100, 400, 40, 160).demo_rate == 80.0
    tight = Capacity(55, 200, 80, 100)
    assert tight.demo_rate == 75.0 and not tight.contrast_ok
    assert "only 1.25x" in tight.warning and "rerun §1" in tight.warning
    assert "close other programs" in measure.LoadGuard(tight).message.lower()
    assert measure.LoadGuard(tight).warning and not measure.LoadGuard(some).warning
    # the threshold is the margins' own ratio, rounded up: never a band with no room
    assert measure.MIN_GAIN >= measure.ABOVE_1 / measure.BELOW_16
    # §4's rows read long enough for 1's queue to grow by two backlogs: 2 s on a fast
    # machine, longer (at most 6 s) where 1 leaves only a few req/s queued
    assert Capacity(100, 400, 40, 160).row_seconds == 2.0          # 40 req/s queued
    assert Capacity(18, 43, 6.7, 11.2).row_seconds == 6.0          # 1.7 req/s queued
    assert Capacity(55, 200, 50, 90).row_seconds == 2.0            # 67.1 - 50 req/s
    assert tight.row_seconds == 2.0  # 75 req/s, below what 1 serves: nothing to wait for
    edge = Capacity(55, 200, 100, 100 * measure.MIN_GAIN)
    assert edge.contrast_ok and edge.demo_rate >= measure.ABOVE_1 * edge.http1


@pytest.mark.parametrize("x,text", [(1.2999, "1.29x"), (1.3, "1.30x"), (1.7549, "1.75x"),
                                    (0.5, "0.50x")])
def test_a_ratio_is_never_shown_at_a_threshold_it_is_below(x, text):
    assert measure.ratio_text(x) == text
    assert "1.30x" not in "\n".join(Capacity(50, 200, 100, 129.99).plan())


def stats(max_batch, queue, done, rejected=0.0, policy="work_conserving", delay=5.0):
    return {"config": {"max_batch": max_batch, "policy": policy, "max_delay_ms": delay},
            "queue_depth": queue, "throughput_rps": done, "rejected_rps": rejected}


def feed(guard, samples, rate, running=True):
    return [guard.update(s, rate, running) for s in samples]


def test_the_guard_lowers_the_load_when_16_falls_behind():
    guard = measure.LoadGuard(Capacity(55, 200, 50, 150))
    # 16 keeps up at 100 req/s: no backlog, nothing to do
    assert feed(guard, [stats(16, 0, 100)] * 6, 100) == [None] * 6
    # the machine gets busier: the queue grows at 16
    out = feed(guard, [stats(16, q, 80) for q in (10, 30, 50)], 100)  # three polls of it
    assert out[:2] == [None] * 2 and out[2] == pytest.approx(60.0)  # 0.75 x 80 completed
    assert "16 fell behind" in guard.message and not guard.warning  # 60 > 1.1 x 50
    assert "lowered to 60 req/s" in guard.message and guard.c16 == 80
    # a paused load, or a draining backlog, is never judged
    assert feed(guard, [stats(16, q, 80) for q in (90, 100, 110, 120)], 60, False) == [None] * 4
    assert feed(guard, [stats(16, q, 80) for q in (120, 90, 60, 30, 20)], 60) == [None] * 5
    # busier still: 16 serves 60, the load drops to 45, below 1.1 x what 1 served
    feed(guard, [stats(16, 20, 60)], 60, False)  # a pause: a new run of samples
    out = feed(guard, [stats(16, q, 60) for q in (30, 60, 90, 120)], 60)
    assert out[3] == 45.0 and guard.warning and "close other programs" in guard.message


def test_the_guard_raises_the_load_when_1_keeps_up_and_says_when_it_cannot():
    guard = measure.LoadGuard(Capacity(55, 200, 50, 150))
    out = feed(guard, [stats(1, 0, 60)] * 4, 60)  # 1 keeps up with 60 req/s
    assert out[-1] == pytest.approx(66.0) and "raised to 66 req/s" in guard.message
    assert guard.hint(72, 1).endswith("drag max_batch back to 16, the queue drains")
    assert "drag max_batch to 1" in guard.hint(72, 16) and "~150" in guard.hint(72, 16)
    # 1 falls behind at the new rate: nothing more to do
    assert feed(guard, [stats(1, q, 55) for q in (10, 40, 70, 100, 128)], 66) == [None] * 5
    # too busy: 1 keeps up at what 16 can hold with margin (0.75 x 60)
    busy = measure.LoadGuard(Capacity(55, 200, 50, 60))
    assert feed(busy, [stats(1, 0, 45)] * 4, 45) == [None] * 4
    assert "too busy for the contrast" in busy.message and busy.warning


def test_a_section_restores_every_knob_and_measures_the_demo_config(service):
    """``clean_run`` sets every knob (the window left on by a slider does not leak into
    the row); ``restored`` puts the service's config back."""
    before = service.get("/config")
    service.configure(policy="window", max_delay_ms=28.0, max_batch=2)
    left = service.get("/config")
    try:
        with measure.restored(service) as was:
            assert was == left
            row = measure.clean_run(service, rate=10.0, seconds=0.5, warmup_s=0.2,
                                    max_batch=4)
            assert (row["max_batch"], row["policy"], row["max_delay_ms"]) == \
                (4, "work_conserving", 5.0)
        assert service.get("/config") == left
    finally:
        service.configure(**before)


def test_compare_interleaves_the_settings_and_reports_medians(service):
    """Every setting runs ``repeats`` times, every other round in reverse order (none
    always first); one row per setting, in the given order, with its runs' medians."""
    order = []

    def configure(**knobs):
        order.append(knobs["max_batch"])
        return service.configure(**knobs)
    before = service.get("/config")
    try:
        rows = measure.compare(service, [{"max_batch": 4}, {"max_batch": 1}], rate=20.0,
                               repeats=3, seconds=0.5, configure=configure)
    finally:
        service.configure(**before)
    assert order == [4, 1, 1, 4, 4, 1]
    assert [r["max_batch"] for r in rows] == [4, 1] and all(r["runs"] == 3 for r in rows)
    assert all(r["completed req/s"] > 0 and r["policy"] == "work_conserving" for r in rows)
    with pytest.raises(ValueError, match="repeats"):
        measure.compare(service, [{"max_batch": 1}], rate=5.0, repeats=0)


@pytest.mark.parametrize("q1,q16,says", [(100, 40, "16 fell behind too"),
                                         (2, 0, "1 kept up"),
                                         (10, 2, "within twice")])
def test_contrast_advice_says_which_side_failed(q1, q16, says):
    cap = Capacity(55, 200, 50, 150)
    advice = measure.contrast_advice({"queue_at_end": q1}, {"queue_at_end": q16}, cap)
    assert says in advice.replace("max_batch=", "") and "rerun this cell" in advice.lower()


def test_contrast_advice_blames_the_busy_machine_when_the_gain_was_too_small():
    tight = Capacity(55, 200, 6, 6.4)  # as beside a CPU hog and four developers
    advice = measure.contrast_advice({"queue_at_end": 0}, {"queue_at_end": 0}, tight)
    assert "gained only 1.06x" in advice and "quieter" not in advice
    assert "close them and rerun this cell" in advice.lower()
