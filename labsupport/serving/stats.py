"""What the embedding service counts: outcomes, latency / wait / batch histograms,
padding, and a rolling window for live dashboards. Rendered as Prometheus text or JSON."""
from __future__ import annotations

import bisect
import threading
import time
from collections import Counter, deque

import numpy as np

from ..metrics import percentiles

MS_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096)
OUTCOMES = ("ok", "rejected", "bad_input", "error", "unavailable")


class Histogram:
    """A cumulative Prometheus histogram (``le`` buckets + sum + count)."""

    def __init__(self, buckets):
        self.buckets = tuple(buckets)
        self.counts = [0] * (len(self.buckets) + 1)
        self.sum, self.count = 0.0, 0

    def observe(self, v: float) -> None:
        self.counts[bisect.bisect_left(self.buckets, v)] += 1
        self.sum += v
        self.count += 1

    def render(self, name: str, help_: str) -> list[str]:
        lines = [f"# HELP {name} {help_}", f"# TYPE {name} histogram"]
        acc = 0
        for le, c in zip(self.buckets, self.counts):
            acc += c
            lines.append(f'{name}_bucket{{le="{le}"}} {acc}')
        lines += [f'{name}_bucket{{le="+Inf"}} {self.count}',
                  f"{name}_sum {self.sum:.6g}", f"{name}_count {self.count}"]
        return lines


class ServiceMetrics:
    """Thread-safe counters: ``outcome`` runs on the event loop, ``batch`` in the model's
    worker thread. ``recent`` keeps the last ``keep_s`` seconds for ``snapshot``."""

    def __init__(self, keep_s: float = 60.0):
        self._lock = threading.Lock()
        self.keep_s = keep_s
        self.outcomes: Counter = Counter({k: 0 for k in OUTCOMES})
        self.texts_ok = 0
        self.latency = Histogram(MS_BUCKETS)         # request end to end, ms
        self.queue_wait = Histogram(MS_BUCKETS)      # text waiting for its batch, ms
        self.batch_exec = Histogram(MS_BUCKETS)      # model time per batch, ms
        self.reject_latency = Histogram(MS_BUCKETS)  # how fast a 429 comes back, ms
        self.batch_size = Histogram(SIZE_BUCKETS)
        self.padded_tokens = self.real_tokens = 0
        self.config_changes = 0
        self.t0 = time.monotonic()
        self._done: deque = deque()     # (t, latency_ms) per ok request
        self._batches: deque = deque()  # (t, size, exec_ms, padded, real)
        self._rejects: deque = deque()  # t per rejection

    def outcome(self, kind: str, ms: float | None = None, n: int = 1) -> None:
        now = time.monotonic()
        with self._lock:
            self.outcomes[kind] += 1
            if kind == "ok":
                self.texts_ok += n
                self.latency.observe(ms)
                self._done.append((now, ms))
            elif kind == "rejected":
                self.reject_latency.observe(ms)
                self._rejects.append(now)
            self._trim(now)

    def batch(self, size: int, padded: int, real: int, waits_ms, exec_ms: float) -> None:
        now = time.monotonic()
        with self._lock:
            self.batch_size.observe(size)
            self.batch_exec.observe(exec_ms)
            for w in waits_ms:
                self.queue_wait.observe(w)
            self.padded_tokens += padded
            self.real_tokens += real
            self._batches.append((now, size, exec_ms, padded, real))
            self._trim(now)

    def _trim(self, now: float) -> None:
        cut = now - self.keep_s
        for dq, key in ((self._done, 0), (self._batches, 0)):
            while dq and dq[0][key] < cut:
                dq.popleft()
        while self._rejects and self._rejects[0] < cut:
            self._rejects.popleft()

    @property
    def padding_ratio(self) -> float:
        """Padded tokens computed per real token (1.0 = no padding)."""
        return self.padded_tokens / self.real_tokens if self.real_tokens else 1.0

    def snapshot(self, svc, window_s: float = 2.0) -> dict:
        """The last ``window_s`` seconds: p50/p99 latency, throughput, mean batch, queue."""
        now = time.monotonic()
        with self._lock:
            lat = [ms for t, ms in self._done if t >= now - window_s]
            bat = [b for b in self._batches if b[0] >= now - window_s]
            rej = sum(1 for t in self._rejects if t >= now - window_s)
            totals = dict(self.outcomes)
        span = min(window_s, now - self.t0) or window_s
        pct = percentiles(lat, (50, 99))
        pad, real = sum(b[3] for b in bat), sum(b[4] for b in bat)
        nan_none = lambda v: None if v != v else v  # JSON has no NaN: nothing finished
        return {"t": now - self.t0, "window_s": window_s, "queue_depth": svc.batcher.queue_depth,
                "p50_ms": nan_none(pct["p50"]), "p99_ms": nan_none(pct["p99"]),
                "completed": len(lat),
                "throughput_rps": len(lat) / span, "rejected_rps": rej / span,
                "batches": len(bat),
                "mean_batch": float(np.mean([b[1] for b in bat])) if bat else 0.0,
                "mean_exec_ms": float(np.mean([b[2] for b in bat])) if bat else 0.0,
                "padding_ratio": pad / real if real else 1.0,
                "totals": totals, "config": svc.config()}

    def prometheus(self, svc) -> str:
        """Prometheus text exposition (format 0.0.4)."""
        cfg = svc.config()
        with self._lock:
            lines = ["# HELP lab_requests_total HTTP embed requests by outcome.",
                     "# TYPE lab_requests_total counter"]
            lines += [f'lab_requests_total{{outcome="{k}"}} {v}'
                      for k, v in sorted(self.outcomes.items())]
            lines += _scalar("lab_texts_embedded_total", "counter", "Texts embedded.",
                             self.texts_ok)
            lines += _scalar("lab_queue_depth", "gauge", "Texts waiting for a batch.",
                             svc.batcher.queue_depth)
            lines += _scalar("lab_padded_tokens_total", "counter",
                             "Tokens computed including padding.", self.padded_tokens)
            lines += _scalar("lab_real_tokens_total", "counter", "Real (unpadded) tokens.",
                             self.real_tokens)
            lines += _scalar("lab_padding_ratio", "gauge",
                             "Padded tokens per real token since start (1 = none).",
                             round(self.padding_ratio, 6))
            lines += self.batch_size.render("lab_batch_size", "Texts per executed batch.")
            lines += self.latency.render("lab_request_latency_ms",
                                         "Embed request latency, ms (accepted requests).")
            lines += self.queue_wait.render("lab_queue_wait_ms",
                                            "Time a text waited for its batch to start, ms.")
            lines += self.batch_exec.render("lab_batch_exec_ms", "Model time per batch, ms.")
            lines += self.reject_latency.render("lab_rejection_latency_ms",
                                                "Time to answer 429, ms.")
            lines += _scalar("lab_config_changes_total", "counter", "Accepted /config posts.",
                             self.config_changes)
        lines += _scalar("lab_max_batch", "gauge", "Current max_batch.", cfg["max_batch"])
        lines += _scalar("lab_max_delay_ms", "gauge", "Current max_delay_ms.",
                         cfg["max_delay_ms"])
        lines += _scalar("lab_max_queue", "gauge", "Current max_queue.", cfg["max_queue"])
        lines += _scalar("lab_resident_memory_bytes", "gauge", "Resident set size of the "
                         "service process.", rss_bytes())
        return "\n".join(lines) + "\n"


def _scalar(name: str, kind: str, help_: str, value) -> list[str]:
    return [f"# HELP {name} {help_}", f"# TYPE {name} {kind}", f"{name} {value}"]


def rss_bytes() -> int:
    """This process's resident set size in bytes (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            import os
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def parse_prometheus(text: str) -> dict[str, float]:
    """``{"name{labels}": value}`` from Prometheus text (for tests and dashboards)."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, val = line.rpartition(" ")
            out[key] = float(val)
    return out
