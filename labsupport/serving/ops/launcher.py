"""Running the lab's service and load generator in the background, as child processes of
this Python process (a notebook kernel, a test):

    svc = start_service("minilm", max_batch=16)     # labsupport serve on a free 127.0.0.1 port
    load = start_load(svc.url, rate=50, duration_s=30)
    ...
    svc.stop(); load.stop()

Each child gets ``--parent-pid``: it stops on ``stop()``, when its handle is garbage
collected, at interpreter exit (``weakref.finalize``), and on its own when the parent dies
without cleaning up (a kernel killed with SIGKILL), so nothing outlives the notebook.
"""
from __future__ import annotations

import json
import signal
import subprocess
import tempfile
import time
import weakref
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ...batching.config import BatchConfig, to_argv
from ...costs import ServiceModel, cost_argv
from ...validate import check_choice, check_float, check_int
from ..api.stats import parse_prometheus
from ..net import check_loopback, post_config
from . import procs
from .loadgen import MAX_DURATION_S, MAX_REQUESTS, text_of


class ServiceHandle:
    """A service running in a child process. Stops on ``stop()``, on garbage collection,
    at interpreter exit, and (through ``--parent-pid``) when this process dies."""

    def __init__(self, proc: subprocess.Popen, url: str, log_path: Path):
        self.proc, self.url, self.log_path = proc, url, log_path
        self._finalizer = weakref.finalize(self, procs.stop, proc)

    def get(self, path: str, **params) -> Any:
        import httpx
        r = httpx.get(self.url + path, params=params, timeout=10)
        r.raise_for_status()
        return r.text if path == "/metrics" else r.json()

    def metrics(self) -> dict[str, float]:
        """``/metrics`` read by ``prometheus_client``'s parser: ``{'name{label="v"}': value}``."""
        return parse_prometheus(self.get("/metrics"))

    def stats(self, window_s: float = 2.0) -> dict:
        return self.get("/stats", window_s=window_s)

    def configure(self, **knobs) -> dict:
        """POST new knobs; raises ``ValueError`` with the service's message when refused."""
        return post_config(self.url, knobs)

    def embed(self, texts: str | list[str]) -> np.ndarray:
        import httpx
        r = httpx.post(self.url + "/embed", json={"input": texts}, timeout=30)
        if r.status_code != 200:
            raise RuntimeError(f"{r.status_code}: {r.json().get('error', r.text)}")
        return np.asarray(r.json()["embeddings"])

    def wait_idle(self, timeout_s: float = 10.0) -> bool:
        """Wait until no text is queued and no request is being answered (True), or
        ``timeout_s`` passed (False): a measurement that starts then inherits no backlog."""
        deadline = time.monotonic() + timeout_s
        while True:
            h = self.get("/healthz")
            if h["queue_depth"] == 0 and h["in_flight"] == 0:
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)

    def capacity(self, batch: int, tokens: int = 20, repeats: int = 3) -> float:
        """Texts per second with batches of ``batch`` texts of ``tokens`` tokens, measured
        now: the fastest of ``repeats`` lone requests (other programs only ever add time;
        call it on an idle service)."""
        import httpx

        texts = [text_of(tokens, i) for i in range(check_int("batch", batch, 1, 4096))]
        ms = []
        for _ in range(check_int("repeats", repeats, 1, 100)):
            r = httpx.post(self.url + "/embed", json={"input": texts}, timeout=60)
            r.raise_for_status()
            ms.append(r.json()["latency_ms"])
        return 1000.0 * batch / float(np.min(ms))

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        self._finalizer()

    def __enter__(self) -> "ServiceHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"ServiceHandle({self.url}, pid={self.proc.pid}, running={self.running})"


def start_service(model: str = "fake", config: BatchConfig | None = None, *,
                  fake: ServiceModel | None = None, timeout_s: float = 60.0,
                  **knobs) -> ServiceHandle:
    """Start ``labsupport serve`` on a free 127.0.0.1 port in a child process, run by
    ``config`` and/or ``knobs`` (``max_batch=16``, ``policy="adaptive"``, …: checked here,
    before anything starts); ``fake``: the fake model's cost (default: the toy model)."""
    cfg = replace(config or BatchConfig(), **knobs)
    check_choice("model", model, ("fake", "minilm"))
    tmp = Path(tempfile.mkdtemp(prefix="labsupport-serve-"))
    argv = ["serve", "--port", "0", "--model", model, *to_argv(cfg),
            *cost_argv(fake or ServiceModel(), "fake-"), "--ready-file", str(tmp / "ready")]
    proc, url = procs.start(procs.lab_command(*argv), tmp / "ready", tmp / "serve.log",
                            timeout_s, "labsupport serve")
    return ServiceHandle(proc, url, tmp / "serve.log")


@dataclass
class LoadHandle:
    """A ``labsupport load`` child process; ``result()`` waits and returns its summary."""
    proc: object
    json_path: str
    log_path: str

    def result(self, timeout_s: float | None = None) -> dict:
        self.proc.wait(timeout_s)
        with open(self.json_path) as f:
            return json.load(f)

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def end(self) -> None:
        """Ask it to end cleanly and return at once: it sends nothing more, waits for the
        answers to what it sent, writes its summary and exits (``result()`` then reads it)."""
        if self.running:
            self.proc.send_signal(signal.SIGTERM)

    def stop(self) -> None:
        """End it, and kill it if its answers take more than 3 s."""
        procs.stop(self.proc, 3.0)


def start_load(url: str, *, pattern: str = "poisson", rate: float = 50.0, n: int = 1000,
               duration_s: float = 20.0, seed: int = 0, **opts) -> LoadHandle:
    """Run ``labsupport load`` in a child process (stopped with this one; bounded by
    ``n`` and ``duration_s``)."""
    check_loopback(url)
    check_int("n", n, 1, MAX_REQUESTS)
    check_float("duration_s", duration_s, 0.0, MAX_DURATION_S, lo_open=True)
    tmp = tempfile.mkdtemp(prefix="labsupport-load-")
    argv = ["load", "--url", url, "--pattern", pattern, "--rate", str(rate), "--n", str(n),
            "--duration", str(duration_s), "--seed", str(seed), "--quiet",
            "--json", f"{tmp}/summary.json", *[f"--{k.replace('_', '-')}={v}"
                                                for k, v in opts.items()]]
    proc = procs.spawn(procs.lab_command(*argv), Path(tmp) / "load.log")
    h = LoadHandle(proc, f"{tmp}/summary.json", f"{tmp}/load.log")
    weakref.finalize(h, procs.stop, proc, 3.0)
    return h
