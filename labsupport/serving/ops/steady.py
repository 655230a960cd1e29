"""A demo load that lasts as long as the trainer talks: an open-loop load that runs until
``stop()`` (or for ``duration_s``), can be paused and resumed, and says where it stands.

    load = SteadyLoad(svc.url, rate=40)          # until load.stop()
    load.pause(); load.resume()
    load.describe()   # 'Poisson load 40 req/s · running 02:31 · until stopped'

Underneath it runs ``labsupport load`` child processes one after another (``start_load``,
each bounded like every load: at most ``MAX_DURATION_S`` and ``MAX_REQUESTS``), each with
its own seed; a pause stops the current one and a resume starts the next. A daemon thread
keeps them going; like every child of the lab, each stops with this process (its handle's
finalizer at exit, its ``--parent-pid`` watch if this process is killed).
"""
from __future__ import annotations

import math
import threading
import time

from ...validate import check_choice, check_float, check_int
from ..net import check_loopback
from .launcher import LoadHandle, start_load
from .loadgen import MAX_DURATION_S, MAX_REQUESTS, PATTERNS

TICK_S = 0.2  # how often the keeper looks at its load process


def clock(seconds: float) -> str:
    """``mm:ss`` (or ``h:mm:ss``)."""
    s = int(round(seconds))
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02d}:{s % 60:02d}" if h else f"{m:02d}:{s % 60:02d}"


class SteadyLoad:
    """An open-loop load at ``rate`` req/s until ``stop()`` or ``duration_s`` (None: until
    stopped) of running time; ``pause()`` / ``resume()``; ``describe()`` for the screen.
    ``chunk_s``: how long each load process runs (default: as long as the load generator's
    bounds allow, ten minutes at most)."""

    def __init__(self, url: str, rate: float, *, duration_s: float | None = None,
                 pattern: str = "poisson", seed: int = 0, min_tokens: int = 8,
                 max_tokens: int = 24, paused: bool = False, chunk_s: float | None = None):
        self.url = check_loopback(url)
        self.rate = check_float("rate", rate, 0.0, MAX_REQUESTS / 60.0, lo_open=True)
        self.duration_s = (None if duration_s is None else
                           check_float("duration_s", duration_s, 0.0, 86_400.0, lo_open=True))
        self.pattern = check_choice("pattern", pattern, PATTERNS)
        self.seed = check_int("seed", seed, 0)
        self.tokens = (check_int("min_tokens", min_tokens, 3),
                       check_int("max_tokens", max_tokens, min_tokens))
        # one child's share (s): the loadgen's own bounds, with room for Poisson's spread
        longest = min(MAX_DURATION_S, 0.8 * MAX_REQUESTS / self.rate)
        self.chunk_s = longest if chunk_s is None else check_float("chunk_s", chunk_s, 1.0,
                                                                   longest)
        self.chunks = 0              # load processes started so far
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
    def pause(self) -> None:
        """Stop sending (the current load process ends); ``resume()`` goes on."""
        self._halt("_paused")

    def resume(self) -> None:
        with self._lock:
            if self._stopped or self._finished:
                return
            self._paused = False
        self._wake.set()

    def stop(self) -> None:
        """End the load for good (the keeper thread exits)."""
        self._halt("_stopped")
        if self._thread is not threading.current_thread():
            self._thread.join(10)

    def _halt(self, flag: str) -> None:
        """Set ``flag`` (paused or stopped), end the running stretch and its process."""
        with self._lock:
            if getattr(self, flag) or self._stopped:
                return
            setattr(self, flag, True)
            self._close_stretch()
            h, self._handle = self._handle, None
        if h is not None:
            h.stop()
        self._wake.set()

    def _close_stretch(self) -> None:
        if self._since is not None:
            self._ran_s += time.monotonic() - self._since
            self._since = None

    # ---- the keeper ---------------------------------------------------------------------
    def _keep(self) -> None:
        """Start the next load process whenever none runs, until stopped or done."""
        while not self._stopped:
            with self._lock:
                if not self._paused and not self._stopped and (
                        self._handle is None or not self._handle.running):
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
        return start_load(self.url, pattern=self.pattern, rate=self.rate,
                          n=min(MAX_REQUESTS, math.ceil(self.rate * seconds * 1.2) + 10),
                          duration_s=seconds, seed=self.seed + self.chunks - 1,
                          min_tokens=self.tokens[0], max_tokens=self.tokens[1])

    def __repr__(self) -> str:
        return f"SteadyLoad({self.url}, {self.describe()})"
