"""Measuring the live service cleanly (notebook 07 and ``labsupport demo-check``): what this
machine serves, the loads the demo offers as shares of it, and one setting at a time under a
fresh load.

Every measurement starts from an idle service (nothing queued, nothing being answered), so
no cell inherits the backlog of the one before, and discards a warm-up before it reads the
service's own ``/stats`` (latency measured inside the service, from arrival to answer).
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from typing import Callable

from ...validate import check_float, check_int
from ..ops.launcher import ServiceHandle, start_load

TOKENS = (8, 24)        # the demo's text lengths (tokens): short questions, mean 16
IDLE_TIMEOUT_S = 30.0   # a backlog of max_queue texts at max_batch=1 drains well within it
MIN_GAIN = 1.3          # below it the demo load sits within 14 % of both capacities: the
                        # difference between max_batch 1 and 16 drowns in the noise
BURST_FACTOR, BURST_QUEUE = 10, 32  # §5: ten times what max_batch=1 serves, a short queue


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
    def demo_rate(self) -> float:
        """The demo load, req/s: the geometric middle of ``http1`` and ``http16``, as far
        above what ``max_batch=1`` serves (×√gain) as below what 16 serves (÷√gain)."""
        return round(math.sqrt(self.http1 * self.http16), 1)

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
        out = [f"§1 capacity: one text per forward pass {self.lone1:.0f} texts/s, batches of "
               f"16 {self.lone16:.0f} texts/s; over HTTP, one text per request, max_batch=1 "
               f"{self.http1:.0f} req/s and max_batch=16 {self.http16:.0f} req/s ({g:.1f}x)",
               f"§2-3 demo load {self.demo_rate:g} req/s = {self.demo_rate / self.http1:.2f}x "
               f"what max_batch=1 serves, {self.demo_rate / self.http16:.2f}x what 16 serves: "
               + ("dragging max_batch to 1 makes the queue grow, 16 drains it" if g >= MIN_GAIN
                  else f"batching gains only {g:.2f}x here now (below {MIN_GAIN}x): max_batch "
                       "1 and 16 will look alike; close other programs and rerun"),
               f"§4 the same sweep scripted at {self.demo_rate:g} req/s; the wait knob at a "
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
                "light_rate": self.light_rate, "service_ms": round(self.service_ms, 2),
                "window_ms": self.window_ms, "burst_rate": self.burst_rate}


def wait_idle(svc: ServiceHandle, timeout_s: float = IDLE_TIMEOUT_S) -> None:
    """Until nothing is queued or being answered; ``RuntimeError`` after ``timeout_s``."""
    if not svc.wait_idle(timeout_s):
        raise RuntimeError(f"the service still had work after {timeout_s:g} s: is another "
                           "load running? (pause or stop it first)")


def backlog_rate(svc: ServiceHandle, max_batch: int, n: int, *, seed: int = 0) -> float:
    """Requests/s the service completes at ``max_batch`` working through ``n`` one-text
    requests sent at once (its queue is raised to hold them; the config is restored)."""
    check_int("n", n, 2, 4096)
    before = svc.get("/config")
    svc.configure(max_batch=max_batch, max_queue=max(n, before["max_queue"]))
    try:
        wait_idle(svc)
        res = start_load(svc.url, rate=50.0 * n, n=n, duration_s=60, seed=seed,
                         min_tokens=TOKENS[0], max_tokens=TOKENS[1]).result(timeout_s=120)
    finally:
        svc.configure(**{k: before[k] for k in ("max_batch", "max_queue")})
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
    """One setting measured from a clean start: wait for an idle service, apply ``knobs``
    (through ``configure``, e.g. a dashboard's, else the service's), send a fresh Poisson
    load at ``rate`` req/s, discard ``warmup_s`` from its first answer, then return what
    the service reports for the next ``seconds`` (p50/p99 ms, completed req/s, mean batch,
    queue at the end); the load is stopped and the queue drained before it returns."""
    check_float("rate", rate, 0.0, 10_000.0, lo_open=True)
    check_float("seconds", seconds, 0.2, 60.0)
    check_float("warmup_s", warmup_s, 0.0, 60.0)
    wait_idle(svc)
    (configure or svc.configure)(**knobs)
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
    return {**knobs, "offered req/s": rate, "p50_ms": s["p50_ms"], "p99_ms": s["p99_ms"],
            "completed req/s": round(s["throughput_rps"], 1),
            "mean_batch": round(s["mean_batch"], 2), "queue_at_end": s["queue_depth"]}


def _answered(svc: ServiceHandle) -> int:
    return sum(svc.stats(window_s=0.2)["totals"].values())
