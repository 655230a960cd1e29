"""Measuring the live service cleanly (notebook 07 and ``labsupport demo-check``): what this
machine serves, the loads the demo offers as shares of it, and one setting at a time under a
fresh load.

Every measurement starts from an idle service (nothing queued, nothing being answered), so
no cell inherits the backlog of the one before, and discards a warm-up before it reads the
service's own ``/stats`` (latency measured inside the service, from arrival to answer).
"""
from __future__ import annotations

import math
import statistics
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Callable

from ...batching.config import BatchConfig
from ...validate import check_float, check_int
from ..ops.launcher import ServiceHandle, start_load

TOKENS = (8, 24)        # the demo's text lengths (tokens): short questions, mean 16
IDLE_TIMEOUT_S = 30.0   # a backlog of max_queue texts at max_batch=1 drains well within it
BURST_FACTOR, BURST_QUEUE = 10, 32  # §5: ten times what max_batch=1 serves, a short queue
ABOVE_1, BELOW_16 = 1.1, 0.75  # the demo load: ≥ 1.1 × what max_batch=1 serves (its queue
# grows by a tenth of the load every second: 60 texts in 10 s at 60 req/s) and ≤ 0.75 × what
# 16 serves (room for the dashboard, the browser and other programs to take a quarter of
# the cores); the dashboard's LoadGuard keeps both while the machine changes
MIN_GAIN = 1.5   # the batching gain (http16 / http1) that leaves room for a load with both
# margins (ABOVE_1 / BELOW_16 = 1.47, rounded up to a figure a ratio_text never contradicts)
REPEATS = 3      # §4: runs of each setting, interleaved; its row is their median
KEEPS_SERVING = 0.5  # §5: under the flood of 429s the encoder still completes at least this
# share of what it serves idle (rejecting is cheap)
DEMO = BatchConfig(max_batch=16, max_delay_ms=5.0, max_queue=128)  # what notebook 07 runs


def demo_knobs(**over) -> dict:
    """Every knob of the demo's config (``DEMO``), with ``over`` changed: a section that
    sets all of them measures the same whatever the sliders were left at."""
    return {**DEMO.to_dict(), **over}


def ratio_text(x: float) -> str:
    """A ratio rounded down to two decimals (``1.2999`` → ``1.29x``): never shown at a
    threshold it is below."""
    return f"{math.floor(x * 100 + 1e-9) / 100:.2f}x"


@contextmanager
def restored(svc: ServiceHandle, configure: Callable[..., dict] | None = None):
    """Run the block, then put back every knob the service ran before it (through
    ``configure``, e.g. a dashboard's, so its sliders follow); yields that config."""
    before = svc.get("/config")
    try:
        yield dict(before)
    finally:
        (configure or svc.configure)(**before)


@dataclass(frozen=True)
class Capacity:
    """What the service completes per second on this machine, measured now.

    ``lone1`` / ``lone16``: texts/s through the model alone, one lone request of 1 or 16
    texts at a time (the service's own latency). ``http1`` / ``http16``: requests/s of one
    text each that the service completes over HTTP with ``max_batch`` 1 or 16, from a
    backlog it works through (the load generator idle meanwhile)."""
    lone1: float
    lone16: float
    http1: float
    http16: float

    @property
    def gain(self) -> float:
        """How much batching raises the HTTP capacity (``http16 / http1``)."""
        return self.http16 / self.http1

    @property
    def contrast_ok(self) -> bool:
        """Whether batching gains enough (``MIN_GAIN``) for one load to sit ``ABOVE_1`` ×
        above what ``max_batch=1`` serves and ``BELOW_16`` × below what 16 serves."""
        return self.gain >= MIN_GAIN

    @property
    def demo_rate(self) -> float:
        """The demo load, req/s: the geometric middle of ``http1`` and ``http16`` (as far
        above what ``max_batch=1`` serves as below what 16 serves), at most ``BELOW_16`` ×
        ``http16``: the margin goes to 16, which shares the cores with the dashboard and the
        browser. With ``contrast_ok`` it is ≥ ``ABOVE_1`` × ``http1``; without, 1 may keep
        up too (``warning`` says so) but 16 never shows a backlog it should not have."""
        mid = math.sqrt(self.http1 * self.http16)
        return round(min(mid, BELOW_16 * self.http16), 1)

    @property
    def warning(self) -> str:
        """'' with ``contrast_ok``; else what the demo will show and what to do (one line)."""
        if self.contrast_ok:
            return ""
        return (f"batching gains only {ratio_text(self.gain)} here now (max_batch=1 "
                f"{self.http1:.0f} req/s, 16 {self.http16:.0f} req/s; the contrast needs "
                f"{MIN_GAIN:g}x): the load is set where 16 keeps up ({self.demo_rate:g} req/s) "
                "and max_batch=1 may keep up too, so the two look alike. Close other programs, "
                "then rerun §1")

    @property
    def row_seconds(self) -> float:
        """How long §4 reads each run (s): long enough for ``max_batch=1``'s queue to grow by
        ``2 × LoadGuard.BACKLOG`` texts at ``demo_rate`` (a slow machine's small excess
        needs longer to show), within [2, 6] s."""
        excess = self.demo_rate - self.http1  # req/s that max_batch=1 leaves queued
        if excess <= 0:  # no contrast to wait for (``warning`` says so): the shortest
            return 2.0
        return float(min(6.0, max(2.0, math.ceil(2 * LoadGuard.BACKLOG / excess))))

    @property
    def light_rate(self) -> float:
        """A light load (req/s): a tenth of what ``max_batch=1`` serves, at least 2."""
        return max(2.0, round(0.1 * self.http1, 1))

    @property
    def service_ms(self) -> float:
        """One text's forward pass alone (ms)."""
        return 1000.0 / self.lone1

    @property
    def window_ms(self) -> float:
        """A wait that stands out of this machine's service time: 4 × ``service_ms``,
        rounded to 5 ms, within the dashboard slider's [10, 50] ms."""
        return float(min(50, max(10, 5 * round(4 * self.service_ms / 5))))

    @property
    def burst_rate(self) -> float:
        """§5's overload (req/s): ``BURST_FACTOR`` × what ``max_batch=1`` serves."""
        return float(round(BURST_FACTOR * self.http1))

    def plan(self) -> list[str]:
        """What notebook 07 will show with these capacities, one line per section."""
        g = self.gain
        out = [f"§1 capacity: one text per forward pass: {self.lone1:.0f} texts/s, batches of "
               f"16: {self.lone16:.0f} texts/s; over HTTP, one text per request: max_batch=1 "
               f"{self.http1:.0f} req/s, max_batch=16 {self.http16:.0f} req/s "
               f"({ratio_text(g)})",
               f"§2-3 demo load {self.demo_rate:g} req/s = {self.demo_rate / self.http1:.2f}x "
               f"what max_batch=1 serves, {self.demo_rate / self.http16:.2f}x what 16 serves: "
               + ("dragging max_batch to 1 makes the queue grow, 16 drains it; the dashboard "
                  "lowers the load if 16 stops keeping up" if self.contrast_ok
                  else self.warning),
               f"§4 the same sweep scripted at {self.demo_rate:g} req/s ({REPEATS} runs of "
               f"{self.row_seconds:g} s for each setting, interleaved, medians); the wait "
               f"knob at a "
               f"light {self.light_rate:g} req/s with a {self.window_ms:g} ms window (one "
               f"text's forward pass here: {self.service_ms:.1f} ms)",
               f"§5 overload: {self.burst_rate:g} req/s for 3 s ({BURST_FACTOR}x what "
               f"max_batch=1 serves) against max_queue {BURST_QUEUE}: most requests get 429"]
        return out

    def rows(self) -> list[dict]:
        return [{"": "model alone, lone requests (texts/s)", "max_batch=1": self.lone1,
                 "max_batch=16": self.lone16, "gain": self.lone16 / self.lone1},
                {"": "over HTTP, one text per request (req/s)", "max_batch=1": self.http1,
                 "max_batch=16": self.http16, "gain": self.gain}]

    def json(self) -> dict:
        return {**asdict(self), "gain": round(self.gain, 3), "demo_rate": self.demo_rate,
                "contrast_ok": self.contrast_ok,
                "light_rate": self.light_rate, "service_ms": round(self.service_ms, 2),
                "window_ms": self.window_ms, "burst_rate": self.burst_rate,
                "row_seconds": self.row_seconds}


class LoadGuard:
    """Keeps the demo load where the contrast shows while the dashboard runs (the dashboard,
    the browser and the load share the cores, and capacity moves on a busy laptop). Fed
    each ``/stats`` sample with the load's rate (``update``); after ``POLLS`` samples of
    one setting under a running load it judges: ``max_batch`` ≥ 16 with a backlog that
    does not drain (or 429s) is not keeping up, so the load drops to ``BELOW_16`` × what it
    completed; ``max_batch`` 1 with no backlog keeps up, so the load rises by ``ABOVE_1``
    (at most ``BELOW_16`` × what 16 was last seen to serve). ``message`` says what it did
    and why, or (``warning``) that the contrast cannot show now and what to do: from the
    start when ``cap`` is not ``contrast_ok``; ``hint`` says which way to move a knob.
    Capacities start from ``cap`` and follow what the service completes whenever it has a
    backlog. Messages stay short: one line of the dashboard at the presenter size."""
    POLLS = 3     # samples of one setting before a verdict (≈ 4.5 s at the 1.5 s poll)
    BACKLOG = 8   # texts queued in every one of them: saturated, completed = capacity

    def __init__(self, cap: Capacity):
        self.c1, self.c16 = cap.http1, cap.http16  # req/s max_batch 1 and 16 serve (latest)
        self.message = "" if cap.contrast_ok else (
            f"batching gains only {ratio_text(cap.gain)} now: 1 may keep up too. Close other "
            "programs, rerun §1")
        self.warning = not cap.contrast_ok  # the message says what the trainer should do
        self.changes = 0   # rates this guard set
        self._key = None   # the setting being watched
        self._run: list[dict] = []

    def update(self, sample: dict, rate: float, running: bool) -> float | None:
        """The new load rate (req/s) when the contrast needs one, else None."""
        c = sample["config"]
        key = (c["max_batch"], c["policy"], c["max_delay_ms"], rate)
        if not running or key != self._key:  # a new setting: its first sample mixes both
            self._key, self._run = (key if running else None), []
            return None
        self._run.append(sample)
        if len(self._run) < self.POLLS:
            return None
        recent, self._run = self._run[-self.POLLS:], self._run[1:]
        q0, q1 = recent[0]["queue_depth"], recent[-1]["queue_depth"]
        done = sum(s["throughput_rps"] for s in recent) / len(recent)
        rejected = any(s["rejected_rps"] > 0 for s in recent)
        saturated = min(s["queue_depth"] for s in recent) >= self.BACKLOG or rejected
        mb = c["max_batch"]
        if mb >= 16 and saturated:
            self.c16 = done
            if q1 >= q0 or rejected:  # not draining
                new = max(1.0, round(BELOW_16 * done, 1))
                self.warning = new < ABOVE_1 * self.c1
                self.message = (f"{mb} fell behind (serves {done:.0f} req/s now): load "
                                f"lowered to {new:g} req/s"
                                + ("; 1 may keep up too: close other programs"
                                   if self.warning else ""))
                return self._set(new)
        elif mb == 1:
            if saturated:
                self.c1 = done
            elif q1 - q0 < self.BACKLOG:  # no backlog, none building: 1 keeps up
                self.c1 = max(self.c1, done)
                top = round(BELOW_16 * self.c16, 1)
                new = min(round(ABOVE_1 * max(rate, done), 1), top)
                if new > rate:
                    self.warning = False
                    self.message = (f"1 kept up with {rate:g} req/s on this machine now: load "
                                    f"raised to {new:g} req/s")
                    return self._set(new)
                self.warning = True
                self.message = (f"1 keeps up with {rate:g} req/s, 16 serves only "
                                f"{self.c16:.0f}: too busy for the contrast; close other "
                                "programs")
        return None

    def _set(self, rate: float) -> float:
        self.changes += 1
        self._key, self._run = None, []
        return rate

    def hint(self, rate: float, max_batch: int | None) -> str:
        """Which way to move ``max_batch`` at ``rate`` req/s, and why (one short line)."""
        why = f"1 serves ~{self.c1:.0f}, 16 ~{self.c16:.0f} req/s"
        if max_batch == 1:
            return f"{why}: drag max_batch back to 16, the queue drains"
        return f"{why}: drag max_batch to 1, queue and p99 climb"


def wait_idle(svc: ServiceHandle, timeout_s: float = IDLE_TIMEOUT_S) -> None:
    """Until nothing is queued or being answered; ``RuntimeError`` after ``timeout_s``."""
    if not svc.wait_idle(timeout_s):
        raise RuntimeError(f"the service still had work after {timeout_s:g} s: is another "
                           "load running? (pause or stop it first)")


def backlog_rate(svc: ServiceHandle, max_batch: int, n: int, *, seed: int = 0) -> float:
    """Requests/s the service completes at ``max_batch`` (the demo's other knobs, its queue
    raised to hold them) working through ``n`` one-text requests sent at once; the config
    is restored."""
    check_int("n", n, 2, 4096)
    with restored(svc):
        svc.configure(**demo_knobs(max_batch=max_batch, max_queue=max(n, DEMO.max_queue)))
        wait_idle(svc)
        res = start_load(svc.url, rate=50.0 * n, n=n, duration_s=60, seed=seed,
                         min_tokens=TOKENS[0], max_tokens=TOKENS[1]).result(timeout_s=120)
    if res["ok"] < 2:
        raise RuntimeError(f"backlog run at max_batch={max_batch}: only {res['ok']} of {n} "
                           f"answered ({res['error_kinds'] or 'rejected'})")
    return round(res["ok"] / res["wall_s"], 1)


def measure_capacity(svc: ServiceHandle, seconds: float = 1.5) -> Capacity:
    """Warm the model, then ``Capacity`` now: lone requests, then a backlog of about
    ``seconds`` of work at ``max_batch`` 1 and 16 (a few seconds in all)."""
    check_float("seconds", seconds, 0.1, 30.0)
    wait_idle(svc)
    svc.capacity(16, repeats=1)  # warm-up: the first forward passes are slow
    lone1, lone16 = svc.capacity(1, tokens=16), svc.capacity(16, tokens=16)
    n1 = max(8, min(4096, round(seconds * lone1 / 2)))  # HTTP costs ~half: ≈ seconds
    n16 = max(16, min(4096, round(seconds * lone16 / 2)))
    return Capacity(round(lone1, 1), round(lone16, 1), backlog_rate(svc, 1, n1),
                    backlog_rate(svc, 16, n16, seed=1))


def clean_run(svc: ServiceHandle, *, rate: float, seconds: float = 3.0,
              warmup_s: float = 0.5, seed: int = 0,
              configure: Callable[..., dict] | None = None, **knobs) -> dict:
    """One setting measured from a clean start: wait for an idle service, apply the demo's
    config with ``knobs`` changed (every knob: the sliders leave nothing behind; through
    ``configure``, e.g. a dashboard's, else the service's), send a fresh Poisson load at
    ``rate`` req/s, discard ``warmup_s`` from its first answer, then return what the
    service reports for the next ``seconds`` (the setting: max_batch, policy, max_delay_ms;
    p50/p99 ms, completed req/s, mean batch, queue at the end); the load is stopped and the
    queue drained before it returns."""
    check_float("rate", rate, 0.0, 10_000.0, lo_open=True)
    check_float("seconds", seconds, 0.2, 60.0)
    check_float("warmup_s", warmup_s, 0.0, 60.0)
    wait_idle(svc)
    cfg = (configure or svc.configure)(**demo_knobs(**knobs))
    answered = _answered(svc)
    load = start_load(svc.url, rate=rate, n=math.ceil(rate * (warmup_s + seconds + 5)) + 10,
                      duration_s=warmup_s + seconds + 5, seed=seed,
                      min_tokens=TOKENS[0], max_tokens=TOKENS[1])
    try:
        deadline = time.monotonic() + 30
        while _answered(svc) == answered:  # the load process is up: its first answer
            if not load.running or time.monotonic() > deadline:
                raise RuntimeError(f"the load never reached the service; log: {load.log_path}")
            time.sleep(0.05)
        time.sleep(warmup_s + seconds)
        s = svc.stats(window_s=seconds)
    finally:
        load.stop()
    wait_idle(svc)
    return {**{k: cfg[k] for k in ("max_batch", "policy", "max_delay_ms")}, **knobs,
            "offered req/s": rate, "p50_ms": s["p50_ms"], "p99_ms": s["p99_ms"],
            "completed req/s": round(s["throughput_rps"], 1),
            "mean_batch": round(s["mean_batch"], 2), "queue_at_end": s["queue_depth"]}


def compare(svc: ServiceHandle, settings: list[dict], *, rate: float,
            repeats: int = REPEATS, seconds: float = 2.0, seed: int = 0,
            configure: Callable[..., dict] | None = None) -> list[dict]:
    """Each of ``settings`` (knobs for ``clean_run``) measured ``repeats`` times at ``rate``
    req/s, interleaved, every other round in reverse order (A B C, C B A, A B C …): a
    machine that gets busier or quieter while they run shifts every setting alike, and no
    setting always runs first. One row per setting, in the given order: the median of its
    runs (p50/p99 ms, completed req/s, mean batch, queue at the end) and ``runs``."""
    check_int("repeats", repeats, 1, 9)
    runs: list[list[dict]] = [[] for _ in settings]
    for r in range(repeats):
        order = range(len(settings)) if r % 2 == 0 else reversed(range(len(settings)))
        for i in order:
            runs[i].append(clean_run(svc, rate=rate, seconds=seconds, seed=seed + r,
                                     configure=configure, **settings[i]))
    numbers = ("p50_ms", "p99_ms", "completed req/s", "mean_batch", "queue_at_end")
    return [{**rs[0], **{k: _median([x[k] for x in rs]) for k in numbers}, "runs": len(rs)}
            for rs in runs]


def _median(xs: list) -> float | None:
    """The median of the runs that measured a number (a window with no answer has none)."""
    xs = [x for x in xs if x is not None and x == x]
    return round(statistics.median(xs), 2) if xs else None


def contrast_advice(b1: dict, b16: dict, cap: Capacity) -> str:
    """What to do when §4's rows (``compare``) do not show max_batch 1 falling behind and
    16 keeping up, from which side failed."""
    if b16["queue_at_end"] >= LoadGuard.BACKLOG:
        return (f"max_batch=16 fell behind too (a queue of {b16['queue_at_end']:g} at the "
                f"end): the machine got busier after the cell measured it (16 served "
                f"{cap.http16:g} req/s then). Close other programs and rerun this cell: it "
                "measures the capacity again and sets every knob itself.")
    if not cap.contrast_ok:
        return (f"Batching gained only {ratio_text(cap.gain)} when the cell measured it "
                f"(max_batch=1 {cap.http1:g} req/s, 16 {cap.http16:g}; a load between them "
                f"with margin needs {MIN_GAIN:g}x), so the rows ran where 16 keeps up and 1 "
                "could keep up too: other programs are taking the CPU. Close them and rerun "
                "this cell.")
    if b1["queue_at_end"] < LoadGuard.BACKLOG:
        return (f"max_batch=1 kept up with {cap.demo_rate:g} req/s (a queue of "
                f"{b1['queue_at_end']:g} at the end): the machine got quieter after the cell "
                "measured it. Rerun this cell; if it repeats, close other programs first.")
    return ("max_batch=1 queued, but its median stayed within twice 16's: the machine's "
            "speed moved between the runs. Close other programs and rerun this cell.")


def _answered(svc: ServiceHandle) -> int:
    return sum(svc.stats(window_s=0.2)["totals"].values())
