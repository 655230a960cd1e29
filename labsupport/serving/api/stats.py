"""What the embedding service counts: outcomes, latency / wait / batch histograms,
padding, and a rolling window for live dashboards. ``/metrics`` is ``prometheus_client``'s
own registry and text exposition; ``/stats`` is the rolling window as JSON."""
from __future__ import annotations

import threading
import time
from collections import Counter as TallyCounter, deque

import numpy as np

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.parser import text_string_to_metric_families

from ...batching.config import BatchConfig, in_use, knobs
from ...metrics import percentiles

MS_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096)
OUTCOMES = ("ok", "rejected", "bad_input", "error", "unavailable")


class ServiceMetrics:
    """Thread-safe counters: ``outcome`` runs on the event loop, ``batch`` in the model's
    worker thread. ``recent`` keeps the last ``keep_s`` seconds for ``snapshot``."""

    def __init__(self, keep_s: float = 60.0):
        self._lock = threading.Lock()
        self.keep_s = keep_s
        self.outcomes: TallyCounter = TallyCounter({k: 0 for k in OUTCOMES})
        self.texts_ok = 0
        self.padded_tokens = self.real_tokens = 0
        self.config_changes = 0
        self.config_changed_t: float | None = None  # s on the snapshot clock, last change
        self.registry = r = CollectorRegistry()  # one per service: tests run several
        self._requests = Counter("lab_requests", "HTTP embed requests by outcome.",
                                 ["outcome"], registry=r)
        self._by_outcome = {k: self._requests.labels(k) for k in OUTCOMES}
        self._texts = Counter("lab_texts_embedded", "Texts embedded.", registry=r)
        self._padded = Counter("lab_padded_tokens", "Tokens computed including padding.",
                               registry=r)
        self._real = Counter("lab_real_tokens", "Real (unpadded) tokens.", registry=r)
        self._changes = Counter("lab_config_changes", "Accepted /config posts.", registry=r)
        hist = lambda name, help_, b=MS_BUCKETS: Histogram(name, help_, buckets=b, registry=r)
        self.latency = hist("lab_request_latency_ms", "Embed request latency, ms (accepted).")
        self.queue_wait = hist("lab_queue_wait_ms", "Time a text waited for its batch, ms.")
        self.batch_exec = hist("lab_batch_exec_ms", "Model time per batch, ms.")
        self.reject_latency = hist("lab_rejection_latency_ms", "Time to answer 429, ms.")
        self.batch_size = hist("lab_batch_size", "Texts per executed batch.", SIZE_BUCKETS)
        self._gauges = {name: Gauge(name, help_, registry=r) for name, help_ in (
            ("lab_queue_depth", "Texts waiting for a batch."),
            ("lab_padding_ratio", "Padded tokens per real token since start (1 = none)."),
            ("lab_resident_memory_bytes", "Resident set size of the service process."))}
        self.knobs = KnobGauges()  # lab_<knob> for the knobs in use, read at each scrape
        r.register(self.knobs)
        self.t0 = time.monotonic()
        self._done: deque = deque()     # (t, latency_ms) per ok request
        self._batches: deque = deque()  # (t, size, exec_ms, padded, real)
        self._rejects: deque = deque()  # t per rejection

    def outcome(self, kind: str, ms: float | None = None, n: int = 1) -> None:
        now = time.monotonic()
        with self._lock:
            self.outcomes[kind] += 1
            self._by_outcome[kind].inc()
            if kind == "ok":
                self.texts_ok += n
                self._texts.inc(n)
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
            self._padded.inc(padded)
            self._real.inc(real)
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
                "totals": totals, "config": svc.config(),
                "config_changes": self.config_changes, "config_changed_t": self.config_changed_t}

    def config_changed(self) -> None:
        with self._lock:
            self.config_changes += 1
            self.config_changed_t = time.monotonic() - self.t0
            self._changes.inc()

    def prometheus(self, svc) -> bytes:
        """Prometheus text exposition of this service's registry (gauges read now)."""
        g = self._gauges
        g["lab_queue_depth"].set(svc.batcher.queue_depth)
        g["lab_padding_ratio"].set(self.padding_ratio)
        self.knobs.cfg = svc.batcher.cfg
        g["lab_resident_memory_bytes"].set(rss_bytes())
        return generate_latest(self.registry)


class KnobGauges:
    """A ``prometheus_client`` collector: ``lab_<knob>`` for every numeric knob in use under
    the running policy (``batching.config.in_use``: no ``lab_max_delay_ms`` where the delay is
    unused, ``lab_slo_p99_ms`` under ``adaptive``) and ``lab_policy{policy="…"} 1``, read
    from ``cfg`` at each scrape."""

    def __init__(self):
        self.cfg: BatchConfig | None = None

    def collect(self):
        if self.cfg is None:
            return
        meaning = {k.name: k for k in knobs(type(self.cfg))}
        for name, value in in_use(self.cfg).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                k = meaning[name]
                unit = f" ({k.unit})" if k.unit else ""
                yield GaugeMetricFamily(f"lab_{name}", f"Current {name}{unit}: {k.help}.",
                                        value=value)
        policy = GaugeMetricFamily("lab_policy", "The running policy (label; value 1).",
                                   labels=["policy"])
        policy.add_metric([self.cfg.policy], 1)
        yield policy


def rss_bytes() -> int:
    """This process's resident set size in bytes (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            import os
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def parse_prometheus(text: str) -> dict[str, float]:
    """``{"name{label="v",…}": value}`` for every sample of a ``/metrics`` text, read by
    ``prometheus_client``'s parser (labels sorted)."""
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
            out[s.name + (f"{{{labels}}}" if labels else "")] = s.value
    return out
