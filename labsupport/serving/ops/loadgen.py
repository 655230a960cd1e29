"""``labsupport load``: an open-loop load generator for the embedding service.

Requests are sent at their scheduled times (Poisson, bursty, or the Azure trace replayed
through ``labsupport.traffic``) whether or not earlier ones have been answered, so a slow
server sees a growing backlog instead of a politely waiting client. Latency is measured
from each request's *scheduled* time (no coordinated omission). Only loopback URLs are
allowed; every run is bounded in requests and seconds.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ...metrics import percentiles
from ...traffic import Request, bursty, load_trace, poisson, replay
from ...validate import check_choice, check_float, check_int
from ..net import check_loopback
from .http_client import HttpClient
from .pacing import pace
from .procs import until_parent_gone

PATTERNS = ("poisson", "bursty", "trace")
MAX_REQUESTS = 100_000  # hard bounds: a classroom tool, not a stress rig
MAX_DURATION_S = 600.0
WORDS = ("batch queue delay token encoder window latency padding bucket gateway model "
         "request kernel tensor cache throughput server client budget policy").split()


def text_of(length: int, seed: int) -> str:
    """A text of ``length`` tokens for the encoder (words + [CLS]/[SEP] ≈ length)."""
    k = max(1, length - 2)
    return " ".join(WORDS[(seed * 7 + i) % len(WORDS)] for i in range(k))


def schedule(pattern: str, rate: float, n: int, *, seed: int = 0, burstiness: float = 4.0,
             min_tokens: int = 8, max_tokens: int = 64) -> list[Request]:
    """The arrival schedule: ``n`` requests at mean ``rate``/s; lengths in tokens.
    ``trace``: the Azure conversation trace, arrivals rescaled to ``rate``, prompt lengths
    scaled into [min_tokens, max_tokens]."""
    check_choice("pattern", pattern, PATTERNS)
    check_int("min_tokens", min_tokens, 3)
    check_int("max_tokens", max_tokens, min_tokens)
    pool = np.arange(min_tokens, max_tokens + 1)
    if pattern == "poisson":
        return poisson(rate, n, seed=seed, lengths=pool)
    if pattern == "bursty":
        return bursty(rate, n, burstiness=burstiness, seed=seed, lengths=pool)
    tr = load_trace()
    n = min(n, len(tr))
    scale = max_tokens / float(np.percentile(tr.context_tokens[:n], 95))
    reqs = replay(tr, n=n, rate_scale=rate / tr.rate_per_s, length_scale=scale,
                  max_length=max_tokens)
    for r in reqs:
        r.length = max(r.length, min_tokens)
    return reqs


@dataclass
class LoadResult:
    """One run: per-request status and latency (ms from scheduled send)."""
    url: str
    pattern: str
    offered_rps: float
    status: list[int] = field(default_factory=list)   # HTTP status, or 0 for a client error
    latency_ms: list[float] = field(default_factory=list)
    lag_ms: list[float] = field(default_factory=list)  # how late each send left, ms
    errors: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0
    not_sent: int = 0  # scheduled after the time bound, or after ``stop`` was set

    def summary(self) -> dict:
        st, lat = np.asarray(self.status), np.asarray(self.latency_ms)
        ok, rej = st == 200, st == 429
        pct = lambda m: {k: (round(v, 3) if v == v else None)  # NaN → null (strict JSON)
                         for k, v in percentiles(lat[m], (50, 90, 99)).items()}
        return {"url": self.url, "pattern": self.pattern, "offered_rps": round(self.offered_rps, 2),
                "sent": int(len(st)), "ok": int(ok.sum()), "rejected": int(rej.sum()),
                "errors": int((~ok & ~rej).sum()), "error_kinds": dict(self.errors),
                "not_sent": self.not_sent, "wall_s": round(self.wall_s, 3),
                "throughput_rps": round(ok.sum() / self.wall_s, 2) if self.wall_s else 0.0,
                "latency_ms": pct(ok), "rejection_latency_ms": pct(rej),
                "median_send_lag_ms": round(float(np.median(self.lag_ms)), 3) if self.lag_ms
                else 0.0, "max_send_lag_ms": round(max(self.lag_ms, default=0.0), 3)}


class Retimed:
    """Send times that follow a rate changed while the load runs (no new process, no gap).
    A schedule drawn at ``base_rate`` is read as positions ``u = offset × base_rate`` (the
    expected count of requests before each); wall time then runs through ``u`` at the
    current rate, so ``set_rate`` stretches or squeezes only what is not due yet (a Poisson
    schedule stays Poisson at the new rate). Indexable like the list ``pace`` takes."""

    def __init__(self, t0: float, offsets: list[float], base_rate: float):
        self._u = [d * base_rate for d in offsets]
        self._anchor = (t0, 0.0, base_rate)  # (wall time, position, rate) since the last change
        self.rate = base_rate

    def __len__(self) -> int:
        return len(self._u)

    def __getitem__(self, k: int) -> float:
        w, u0, r = self._anchor  # one tuple: a reader sees the old or the new mapping whole
        return w + (self._u[k] - u0) / r

    def set_rate(self, rate: float, now: float | None = None) -> None:
        """From ``now`` (``time.monotonic()``) on, send at ``rate`` req/s."""
        rate = check_float("rate", rate, 0.0, MAX_REQUESTS, lo_open=True)
        now = time.monotonic() if now is None else now
        w, u0, r = self._anchor
        self._anchor, self.rate = (now, u0 + (now - w) * r, rate), rate


def follow_rate(path: str, dues: Retimed, stop: threading.Event, every_s: float = 0.1) -> None:
    """Until ``stop``: read a rate (req/s, one number) from ``path`` every ``every_s`` and
    retime ``dues`` when it changes (the writer replaces the file whole); a bad number is
    ignored."""
    last = None
    while not stop.wait(every_s):
        try:
            text = Path(path).read_text().strip()
            if text != last:
                last = text
                dues.set_rate(float(text))
        except (OSError, ValueError):
            continue


def lab_body(r: Request) -> bytes:
    """The lab's own ``/embed`` body for ``r``: ``{"input": <a text of r.length tokens>}``."""
    return json.dumps({"input": text_of(r.length, r.id)}).encode()


async def run_load(url: str, requests: list[Request], *, pattern: str = "custom",
                   max_duration_s: float = 30.0, timeout_s: float = 30.0,
                   progress: bool = False, path: str = "/embed",
                   body: Callable[[Request], bytes] | None = None,
                   stop: threading.Event | None = None,
                   rate_file: str | None = None) -> LoadResult:
    """Send ``requests`` open loop to ``url`` + ``path`` (default ``/embed`` with the lab's
    ``{"input": text}``; ``body(request)`` builds another API's bytes, e.g. a peer's); stop
    scheduling after ``max_duration_s``, or once ``stop`` is set (what was sent is still
    answered and counted). Bodies are built before the first send. ``rate_file``: a file
    holding a rate (req/s) read while the load runs; a new one retimes what is not sent yet
    (``Retimed``)."""
    url = check_loopback(url)
    check_int("requests", len(requests), 1, MAX_REQUESTS)
    check_float("max_duration_s", max_duration_s, 0.0, MAX_DURATION_S, lo_open=True)
    span = (requests[-1].arrival - requests[0].arrival) / 1000.0 if len(requests) > 1 else 0
    res = LoadResult(url, pattern, (len(requests) - 1) / span if span > 0 else 0.0)
    datas = [(body or lab_body)(r) for r in requests]
    bar = _bar(len(requests), progress)
    client = HttpClient(url, timeout_s)
    loop = asyncio.get_running_loop()
    t0 = time.monotonic()  # not loop.time(): uvloop's counts whole ms
    offsets = [(r.arrival - requests[0].arrival) / 1000.0 for r in requests]
    stop = stop or threading.Event()
    if rate_file is None:
        dues = [t0 + d for d in offsets if d <= max_duration_s]
    else:  # the time bound cannot be read off a schedule that may be retimed: a timer
        dues = Retimed(t0, offsets, res.offered_rps or 1.0)
        timer = threading.Timer(max_duration_s, stop.set)
        timer.daemon = True
        timer.start()
        threading.Thread(target=follow_rate, args=(rate_file, dues, stop), daemon=True,
                         name="loadgen-rate").start()

    async def one(data: bytes, due: float) -> None:
        lag = (time.monotonic() - due) * 1000.0
        code = await _send(client, path, data, res)
        res.status.append(code)  # the three lists stay aligned: one entry per request
        res.latency_ms.append((time.monotonic() - due) * 1000.0)
        res.lag_ms.append(lag)
        bar.update(1)

    tasks = []
    try:
        await pace(dues, lambda k: tasks.append(loop.create_task(one(datas[k], dues[k]))),
                   stop=stop)
        res.not_sent = len(requests) - len(tasks)
        await asyncio.gather(*tasks)
    finally:
        stop.set()  # the rate follower and the timer end with the sends
        for t in tasks:
            t.cancel()
        await client.aclose()
        bar.close()
    res.wall_s = time.monotonic() - t0
    return res


async def run_closed(url: str, requests: list[Request], concurrency: int, *,
                     duration_s: float | None = None, timeout_s: float = 30.0,
                     path: str = "/embed",
                     body: Callable[[Request], bytes] | None = None) -> LoadResult:
    """Send ``requests`` closed loop: ``concurrency`` senders, each sends its next request
    as soon as its last one is answered (a saturation test: the server sets the pace, no
    backlog grows); none is sent after ``duration_s``. Latency is from each actual send;
    arrival times are ignored."""
    url = check_loopback(url)
    check_int("requests", len(requests), 1, MAX_REQUESTS)
    check_int("concurrency", concurrency, 1, 4096)
    if duration_s is not None:
        check_float("duration_s", duration_s, 0.0, MAX_DURATION_S, lo_open=True)
    res = LoadResult(url, f"closed({concurrency})", 0.0)
    datas = iter([(body or lab_body)(r) for r in requests])
    client = HttpClient(url, timeout_s)
    t0 = time.monotonic()
    stop = float("inf") if duration_s is None else t0 + duration_s

    async def sender() -> None:
        for data in datas:  # one shared iterator: each request is sent once
            t = time.monotonic()
            if t >= stop:
                return
            res.status.append(await _send(client, path, data, res))
            res.latency_ms.append((time.monotonic() - t) * 1000.0)
            res.lag_ms.append(0.0)

    try:
        await asyncio.gather(*(sender() for _ in range(concurrency)))
    finally:
        await client.aclose()
    res.wall_s = time.monotonic() - t0
    res.offered_rps = len(res.status) / res.wall_s if res.wall_s else 0.0
    return res


async def _send(client: HttpClient, path: str, data: bytes, res: LoadResult) -> int:
    """POST ``data``; its HTTP status, or 0 with the error's kind counted in ``res``."""
    try:
        code, _ = await client.request("POST", path, data)
        return code
    except (OSError, ValueError, IndexError) as exc:  # TimeoutError is an OSError
        kind = type(exc).__name__
        res.errors[kind] = res.errors.get(kind, 0) + 1
        return 0


def _bar(total: int, enabled: bool):
    from tqdm.auto import tqdm
    return tqdm(total=total, unit="req", disable=not enabled, file=sys.stderr,
                desc="load", mininterval=0.5)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="labsupport load", description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default="http://127.0.0.1:8000", help="service URL (loopback only)")
    p.add_argument("--pattern", default="poisson", choices=PATTERNS)
    p.add_argument("--rate", type=float, default=50.0, help="mean requests per second")
    p.add_argument("--n", type=int, default=500, help=f"requests to send (<= {MAX_REQUESTS})")
    p.add_argument("--duration", type=float, default=30.0,
                   help=f"stop scheduling after this many seconds (<= {MAX_DURATION_S:g})")
    p.add_argument("--burstiness", type=float, default=4.0, help="bursty: peak / mean rate")
    p.add_argument("--min-tokens", type=int, default=8)
    p.add_argument("--max-tokens", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=30.0, help="per request, seconds")
    p.add_argument("--json", dest="json_path", help="write the summary here as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no text summary")
    p.add_argument("--rate-file", help="read a new rate (req/s) from this file while running")
    p.add_argument("--parent-pid", type=int, help="(background runs) stop when it exits")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        url = check_loopback(args.url)
        check_int("n", args.n, 1, MAX_REQUESTS)
        check_float("duration", args.duration, 0.0, MAX_DURATION_S, lo_open=True)
        reqs = schedule(args.pattern, args.rate, args.n, seed=args.seed,
                        burstiness=args.burstiness, min_tokens=args.min_tokens,
                        max_tokens=args.max_tokens)
    except ValueError as exc:
        print(f"labsupport load: {exc}", file=sys.stderr)
        return 2
    import uvloop  # the lean loop: the client shares the cores with the server it tests
    res = uvloop.run(until_parent_gone(_drained_on_sigterm(url, reqs, args), args.parent_pid))
    summary = res.summary()
    if args.json_path:
        with open(args.json_path, "w") as f:
            json.dump(summary, f, indent=1)
    if not args.quiet:
        print(format_summary(summary))
    return 0 if summary["errors"] == 0 else 1


async def _drained_on_sigterm(url: str, reqs: list[Request], args) -> LoadResult:
    """``run_load`` that SIGTERM ends cleanly: no new sends, every request already sent is
    answered (or times out) and counted, the summary is written (``SteadyLoad`` ends a
    stretch this way)."""
    stop = threading.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    return await run_load(url, reqs, pattern=args.pattern, max_duration_s=args.duration,
                          timeout_s=args.timeout, progress=not args.quiet, stop=stop,
                          rate_file=args.rate_file)


def format_summary(s: dict) -> str:
    fmt = lambda v: "–" if v is None else f"{v:.1f}"
    lat = {k: fmt(v) for k, v in s["latency_ms"].items()}
    rej = {k: fmt(v) for k, v in s["rejection_latency_ms"].items()}
    return (f"{s['pattern']} load on {s['url']}: offered {s['offered_rps']:.1f} req/s, "
            f"{s['sent']} sent in {s['wall_s']:.1f} s\n"
            f"  ok {s['ok']}  rejected (429) {s['rejected']}  errors {s['errors']} "
            f"{s['error_kinds'] or ''}\n"
            f"  throughput {s['throughput_rps']:.1f} req/s   latency p50 {lat['p50']} ms  "
            f"p90 {lat['p90']} ms  p99 {lat['p99']} ms\n"
            f"  429 answered in p50 {rej['p50']} ms, p99 {rej['p99']} ms; "
            f"max send lag {s['max_send_lag_ms']:.1f} ms")
