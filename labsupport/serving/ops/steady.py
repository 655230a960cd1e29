"""A demo load that lasts as long as the trainer talks: an open-loop load that runs until
``stop()`` (or for ``duration_s``), can be paused and resumed, and says where it stands.

    load = SteadyLoad(svc.url, rate=40)          # until load.stop()
    load.pause(); load.resume()
    load.set_rate(25)                            # at once (paused: from the resume on)
    load.describe()   # 'Poisson load 25 req/s · running 02:31 · until stopped'

Underneath it runs ``labsupport load`` child processes one after another (``start_load``,
each bounded like every load: at most ``MAX_DURATION_S`` and ``MAX_REQUESTS``), each with
its own seed. A new rate retimes the running process through its ``--rate-file`` (no new
process, no second without sends); a pause, or a rate beyond what the running process
holds requests for, ends it cleanly (it sends nothing more, its requests in flight are
still answered and counted in ``totals``) and the next starts at the rate then set. A daemon thread keeps them going; like every child of the lab, each
stops with this process (its handle's finalizer at exit, its ``--parent-pid`` watch if
this process is killed).
"""
from __future__ import annotations

import math
import os
import signal
import tempfile
import threading
import time
from pathlib import Path

from ...validate import check_choice, check_float, check_int
from ..net import check_loopback
from .launcher import LoadHandle, start_load
from .loadgen import MAX_DURATION_S, MAX_REQUESTS, PATTERNS

TICK_S = 0.2  # how often the keeper looks at its load process
END_WAIT_S = 10.0  # stop(): how long the last answers may take before the processes are killed
MAX_RATE = MAX_REQUESTS / 60.0  # req/s: a load process must last a minute within its bound
HEADROOM = 3.0  # each load process holds requests for this many times its starting rate:
# a retimed rate up to it needs no new process
COUNTS = ("sent", "ok", "rejected", "errors", "not_sent")  # ``totals``, from each summary


def clock(seconds: float) -> str:
    """``mm:ss`` (or ``h:mm:ss``)."""
    s = int(round(seconds))
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02d}:{s % 60:02d}" if h else f"{m:02d}:{s % 60:02d}"


class SteadyLoad:
    """An open-loop load at ``rate`` req/s until ``stop()`` or ``duration_s`` (None: until
    stopped) of running time; ``pause()`` / ``resume()``; ``describe()`` for the screen.
    ``chunk_s``: how long each load process runs (default: as long as the load generator's
    bounds allow at the rate, ten minutes at most); ``set_rate`` changes the rate."""

    def __init__(self, url: str, rate: float, *, duration_s: float | None = None,
                 pattern: str = "poisson", seed: int = 0, min_tokens: int = 8,
                 max_tokens: int = 24, paused: bool = False, chunk_s: float | None = None):
        self.url = check_loopback(url)
        self.rate = check_rate(rate)
        self.duration_s = (None if duration_s is None else
                           check_float("duration_s", duration_s, 0.0, 86_400.0, lo_open=True))
        self.pattern = check_choice("pattern", pattern, PATTERNS)
        self.seed = check_int("seed", seed, 0)
        self.tokens = (check_int("min_tokens", min_tokens, 3),
                       check_int("max_tokens", max_tokens, min_tokens))
        self._chunk_arg = None if chunk_s is None else check_float(
            "chunk_s", chunk_s, 1.0, _longest(self.rate))
        self.chunk_s = _chunk(self.rate, self._chunk_arg)
        self.chunks = 0              # load processes started so far
        self.retimes = 0             # rate changes the running process took over itself
        self._rate_file = Path(tempfile.mkdtemp(prefix="labsupport-steady-")) / "rate"
        self._write_rate()
        self._holds = 0.0            # the highest rate the running process has requests for
        self.rate_changes = 0        # set_rate calls that changed the rate
        self.rate_changed_t: float | None = None  # time.monotonic() of the last one
        self.totals = dict.fromkeys(COUNTS, 0)    # of the load processes that have ended
        self.unreported = 0          # load processes that ended without a summary (killed)
        self._ended: list[LoadHandle] = []  # ended or ending, their summary not read yet
        self._ran_s = 0.0            # running time before the current stretch
        self._since: float | None = None  # start of the current running stretch
        self._paused, self._stopped, self._finished = paused, False, False
        self._handle: LoadHandle | None = None
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._keep, name="steady-load", daemon=True)
        self._thread.start()

    # ---- state ------------------------------------------------------------------------
    @property
    def elapsed_s(self) -> float:
        """Running time so far, pauses excluded (s)."""
        with self._lock:
            return self._ran_s + (time.monotonic() - self._since if self._since else 0.0)

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def running(self) -> bool:
        """True while requests are being sent (not paused, stopped or finished)."""
        h = self._handle
        return not (self._paused or self._stopped or self._finished) and h is not None \
            and h.running

    @property
    def pid(self) -> int | None:
        """The running load process's id (None while paused, stopped or between two)."""
        h = self._handle
        return h.proc.pid if h is not None and h.running else None

    def describe(self) -> str:
        """One line for the screen: rate, state, running time and what is left."""
        what = f"{self.pattern.capitalize()} load {self.rate:g} req/s"
        t = clock(self.elapsed_s)
        if self._stopped:
            return f"{what} · stopped after {t}"
        if self._finished:
            return f"{what} · finished after {t}"
        if self._paused:
            return f"{what} · paused at {t}"
        left = ("until stopped" if self.duration_s is None else
                f"{clock(max(0.0, self.duration_s - self.elapsed_s))} left of "
                f"{clock(self.duration_s)}")
        return f"{what} · running {t} · {left}"

    # ---- control ----------------------------------------------------------------------
    def set_rate(self, rate: float) -> None:
        """Send ``rate`` req/s from now on: the running load process is retimed (within
        0.1 s, no gap); one that holds too few requests for ``rate`` ends cleanly (its
        requests in flight are still answered) and the next starts at once; while paused,
        from the resume on."""
        rate = check_rate(rate)
        with self._lock:
            if rate == self.rate:
                return
            self.rate, self.chunk_s = rate, _chunk(rate, self._chunk_arg)
            self.rate_changes += 1
            self.rate_changed_t = time.monotonic()
            self._write_rate()
            if self._handle is not None and rate <= self._holds:
                self.retimes += 1
                return
            self._end_current()
        self._wake.set()

    def _write_rate(self) -> None:
        """The rate file the load process follows, replaced whole (never read half)."""
        tmp = self._rate_file.with_suffix(".tmp")
        tmp.write_text(f"{self.rate!r}\n")
        os.replace(tmp, self._rate_file)

    def pause(self) -> None:
        """Stop sending (the current load process ends cleanly); ``resume()`` goes on."""
        self._halt("_paused")

    def resume(self) -> None:
        with self._lock:
            if self._stopped or self._finished:
                return
            self._paused = False
        self._wake.set()

    def stop(self) -> None:
        """End the load for good (the keeper thread exits); waits up to ``END_WAIT_S`` for
        the last answers, then kills what still runs."""
        self._halt("_stopped")
        if self._thread is not threading.current_thread():
            self._thread.join(10)
        deadline = time.monotonic() + END_WAIT_S
        while self._reap() and time.monotonic() < deadline:
            time.sleep(0.05)
        with self._lock:
            for h in self._ended:
                h.stop()
        self._reap()
        for f in (self._rate_file, self._rate_file.with_suffix(".tmp")):
            f.unlink(missing_ok=True)
        try:
            self._rate_file.parent.rmdir()
        except OSError:
            pass

    def _halt(self, flag: str) -> None:
        """Set ``flag`` (paused or stopped), end the running stretch and its process."""
        with self._lock:
            if getattr(self, flag) or self._stopped:
                return
            setattr(self, flag, True)
            self._close_stretch()
            self._end_current()
        self._wake.set()

    def _end_current(self) -> None:
        """The running load process sends nothing more (its answers still come); call
        with the lock held."""
        h, self._handle = self._handle, None
        if h is not None:
            h.end()
            self._ended.append(h)

    def _reap(self) -> int:
        """Add the summaries of the ended load processes to ``totals``; how many still run."""
        with self._lock:
            if self._handle is not None and not self._handle.running:
                self._ended.append(self._handle)  # it ran its share and ended on its own
                self._handle = None
            for h in [h for h in self._ended if not h.running]:  # each asked once
                self._ended.remove(h)
                try:
                    summary = h.result(0)
                except (OSError, ValueError):
                    # SIGTERM's default action: it ended before its first send (the load
                    # catches SIGTERM from then on); anything else (killed) sent unseen
                    self.unreported += h.proc.returncode != -signal.SIGTERM
                    continue
                for k in COUNTS:
                    self.totals[k] += summary[k]
            return len(self._ended)

    def _close_stretch(self) -> None:
        if self._since is not None:
            self._ran_s += time.monotonic() - self._since
            self._since = None

    # ---- the keeper ---------------------------------------------------------------------
    def _keep(self) -> None:
        """Start the next load process whenever none runs, until stopped or done."""
        while not self._stopped:
            self._reap()
            with self._lock:
                if not self._paused and not self._stopped and self._handle is None:
                    left = (math.inf if self.duration_s is None else
                            self.duration_s - self._ran_s -
                            (time.monotonic() - self._since if self._since else 0.0))
                    if left <= 0.05:
                        self._finished = True
                        self._close_stretch()
                        return
                    self._handle = self._next(min(self.chunk_s, left))
                    if self._since is None:
                        self._since = time.monotonic()
            self._wake.wait(TICK_S)
            self._wake.clear()

    def _next(self, seconds: float) -> LoadHandle:
        self.chunks += 1
        n = min(MAX_REQUESTS, math.ceil(HEADROOM * self.rate * seconds * 1.2) + 10)
        self._holds = n / (1.2 * seconds)
        return start_load(self.url, pattern=self.pattern, rate=self.rate, n=n,
                          duration_s=seconds, seed=self.seed + self.chunks - 1,
                          min_tokens=self.tokens[0], max_tokens=self.tokens[1],
                          rate_file=str(self._rate_file))

    def __repr__(self) -> str:
        return f"SteadyLoad({self.url}, {self.describe()})"


def check_rate(rate: float) -> float:
    """``rate`` (req/s) if a load can send it: > 0 and at most ``MAX_RATE``."""
    return check_float("rate", rate, 0.0, MAX_RATE, lo_open=True)


def _longest(rate: float) -> float:
    """One load process's longest share (s) at ``rate``: the loadgen's own bounds, with
    room for Poisson's spread."""
    return min(MAX_DURATION_S, 0.8 * MAX_REQUESTS / rate)


def _chunk(rate: float, asked: float | None) -> float:
    """How long each load process runs at ``rate``: ``asked`` within the bounds, else the
    longest."""
    return _longest(rate) if asked is None else min(asked, _longest(rate))
