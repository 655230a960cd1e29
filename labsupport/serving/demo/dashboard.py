"""A live dashboard for a running ``labsupport serve``: its one state, the poller, and the
guard of the demo load's contrast. Its widgets (sliders for ``max_batch`` /
``max_delay_ms``, a policy menu, optionally the demo load's pause button and rate slider)
are bound to that state by ``dashboard_widgets``; what they show is drawn by
``dashboard_view`` (readout, a four-panel plot of ``/stats``, load and status lines).

    dash = Dashboard(svc.url, load=load, capacity=cap)  # load: a SteadyLoad, optional;
                                            # cap: measure.Capacity, keeps the load's contrast
    display(dash.widget())                  # a background thread polls and redraws
    dash.configure(max_batch=4)             # from code: the widgets follow at once
    dash.set_load_rate(30)                  # the demo load, from code: the same
    display(dash.snapshot())                # a static copy of the plot so far
    dash.stop()                             # sliders, readout, title and status agree

One state: ``live_config`` is the service's config as last read, and the sliders, readout,
plot title and status line all show it. It changes when this dashboard posts a change, and
when a poll finds the service running another config (set by another cell or client): the
widgets follow within one poll. The load's own ``rate`` is its one state, shown the same
way. A burst of slider moves becomes one change after ``debounce_s`` of quiet. Each change
the service reports, and each new load rate, is marked on the plot at the service's own
time. The plot waits for two samples before its first draw.

With a load and the capacities measured before (``capacity``), a ``measure.LoadGuard``
watches every sample: when ``max_batch`` 16 stops keeping up (the machine got busier) it
lowers the load, when 1 keeps up it raises it, and the load line says so and why, and
which way to move ``max_batch``; capacities too close for the contrast are said there from
the start. The readout's numbers show "–" when they are
stale (their window spans a config change, or no poll came for a while); the status line
says "disconnected" when nothing updates it any more (the kernel stopped).

The poller is a daemon thread that runs until ``stop()`` (or ``max_duration_s``), garbage
collection or interpreter exit; a failed poll (a swamped service) is retried.
"""
from __future__ import annotations

import threading
import time
import weakref
from collections import deque

from ..net import check_loopback, get_config, post_config
from ...projector import image, png
from ...validate import check_float
from . import dashboard_view
from .dashboard_view import load_text
from .dashboard_widgets import LOAD_KNOB, DashboardWidgets
from .measure import LoadGuard

MAX_FAILURES = 3  # connection refusals in a row before the poller decides the service is gone


class Dashboard:
    """Polls ``url``/stats every ``interval_s``; keeps the last ``history`` samples."""

    def __init__(self, url: str, *, interval_s: float = 1.5, window_s: float = 1.5,
                 history: int = 600, max_duration_s: float | None = None,
                 debounce_s: float = 0.6, load=None, presenter: bool = False,
                 capacity=None):
        import httpx
        self.url = check_loopback(url)
        self.interval_s = check_float("interval_s", interval_s, 0.05, 60.0)
        self.window_s = check_float("window_s", window_s, 0.2, 60.0)
        self.max_duration_s = (None if max_duration_s is None else
                               check_float("max_duration_s", max_duration_s, 1.0, 86_400.0))
        self.load, self.presenter = load, bool(presenter)
        self.guard = None if load is None or capacity is None else LoadGuard(capacity)
        self.debounce_s = check_float("debounce_s", debounce_s, 0.0, 10.0)
        self.view: DashboardWidgets | None = None  # the widgets, once widget() built them
        self.polls = 0               # samples read so far
        self.beat = 0                # poller rounds (failed ones too): the page's heartbeat
        self._polled_t: float | None = None  # time.monotonic() of the last sample
        self.samples: deque[dict] = deque(maxlen=history)
        self.marks: list[tuple[float, str]] = []  # (service time s, what changed)
        self.live_config: dict = {}  # the service's config as last seen: every widget shows it
        self.note = ""               # the status line's latest event
        self.posts = 0               # config changes this dashboard sent
        self.gone = False            # the poller ended: the service refused connections
        self.redraws = 0
        self._marked: dict = {}      # the config at the last mark
        self._changes_seen: int | None = None
        self._load_marked = None if load is None else load.rate  # the rate at the last mark
        self._load_asked: float | None = None  # the last rate this dashboard set
        self._seq = 0                # bumped by every (pending) change: stale polls don't sync
        self._client = httpx.Client(timeout=5, trust_env=False)
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()  # the heartbeat's end (garbage collection, exit)
        self._finalizer = weakref.finalize(self, _shutdown, self._stop, self._client,
                                           self._closed)

    # ---- state ------------------------------------------------------------------------
    def poll(self) -> dict:
        """One ``/stats`` sample (stored); adopts the config it reports unless a change of
        ours is pending or was posted while the request was out."""
        seq = self._seq
        s = self._client.get(self.url + "/stats", params={"window_s": self.window_s}).json()
        with self._lock:
            self.samples.append(s)
            self.polls += 1
            self._polled_t = time.monotonic()
            self._mark(s)
            self._mark_load(s)
            self._keep_contrast(s)
            if seq == self._seq and not self._pending():
                self._adopt(s["config"], outside=True)
        return s

    def _keep_contrast(self, s: dict) -> None:
        """Let the guard judge the sample; a new rate goes to the load, marked and said."""
        if self.guard is None or self._pending():
            return
        new = self.guard.update(s, self.load.rate, not self.load.paused)
        if new is not None and new != self.load.rate:
            self.load.set_rate(new)
            self._load_asked = self.load.rate
            self.note = f"{self.guard.message} ({time.strftime('%H:%M:%S')})"

    def _mark_load(self, s: dict) -> None:
        """A dotted line where the load's rate changed, named like a config change
        (``load→30``), at the service's time of the change (its clock ticks with ours)."""
        if self.load is None or self.load.rate == self._load_marked:
            return
        rate, t = self.load.rate, self.load.rate_changed_t
        if t is not None:
            self.marks.append((s["t"] - max(0.0, time.monotonic() - t),
                               dashboard_view.mark_label({LOAD_KNOB: self._load_marked},
                                                         {LOAD_KNOB: rate})))
        if rate != self._load_asked:
            self.note = (f"load changed by another cell at {time.strftime('%H:%M:%S')}: "
                         f"{load_text(self._load_marked)} → {load_text(rate)}")
        self._load_marked = rate

    def _mark(self, s: dict) -> None:
        """A dotted line where the service says its config last changed, named."""
        n, t = s.get("config_changes"), s.get("config_changed_t")
        if self._changes_seen is None or not self._marked:
            self._changes_seen, self._marked = n, dict(s["config"])
            return
        if n != self._changes_seen and t is not None:
            label = dashboard_view.mark_label(self._marked, s["config"])
            if label:
                self.marks.append((t, label))
            self._marked = dict(s["config"])
        self._changes_seen = n

    def _adopt(self, cfg: dict, *, outside: bool = False, note: str | None = None) -> None:
        """Make ``cfg`` the one state and show it everywhere cheap (not the plot)."""
        with self._lock:
            changed = cfg != self.live_config
            if outside and changed and self.live_config:
                note = (f"changed by another client or cell at {time.strftime('%H:%M:%S')}: "
                        f"{dashboard_view.change_label(self.live_config, cfg)}")
            self.live_config = dict(cfg)
            if note:
                self.note = note
            self._show()

    def configure(self, **knobs) -> dict:
        """POST ``knobs`` to ``/config`` and show the result; raises ValueError with the
        service's message (the widgets then show what still runs)."""
        with self._lock:
            self._seq += 1
        try:
            cfg = post_config(self.url, knobs, self._client)
        except ValueError as exc:
            self._adopt(get_config(self.url, self._client), note=f"config refused: {exc}")
            raise
        self.posts += 1
        given = ", ".join(f"{k}={v}" for k, v in knobs.items() if v is not None)  # no unset
        # limits (max_tokens=None, edges=None) in the line after a cell puts every knob back
        self._adopt(cfg, note=f"set {given} here at {time.strftime('%H:%M:%S')}")
        if not self.running and self.view is not None:
            self.refresh()  # no poller: mark and draw now
        return cfg

    def set_load_rate(self, rate: float) -> None:
        """Set the demo load's rate (req/s) and show it; raises ``ValueError`` naming
        ``rate`` and its range when the load refuses it."""
        if self.load is None:
            raise ValueError("rate: this dashboard has no load (Dashboard(..., load=...))")
        self.load.set_rate(rate)
        with self._lock:
            self._load_asked = self.load.rate
            self.note = f"set load {load_text(self.load.rate)} here at {time.strftime('%H:%M:%S')}"
            self._show()
        if not self.running and self.view is not None:
            self.refresh()  # no poller: mark and draw now

    def refresh(self) -> None:
        """Poll once and redraw (what the poller does every ``interval_s``)."""
        self.poll()
        self._draw()

    # ---- what is shown ----------------------------------------------------------------
    def snapshot(self):
        """A static copy of the plot so far (an IPython ``Image`` for ``display``)."""
        return image(self.figure())

    def figure(self):
        """The plot so far as a matplotlib ``Figure`` (title: the live config)."""
        with self._lock:
            ss, marks, title = list(self.samples), list(self.marks), self._config_line()
        return dashboard_view.figure(ss, marks, self.live_config, presenter=self.presenter,
                                     title=title)

    def png(self) -> bytes:
        return png(self.figure())

    def readout(self) -> str:
        """The readout tiles (HTML): the live config and the last sample's numbers ("–"
        when stale: ``dashboard_view.fresh`` says no, or no poll for 5 intervals (10 s at
        least) while polling)."""
        last = self.samples[-1] if self.samples else None
        late = (self.running and self._polled_t is not None and
                time.monotonic() - self._polled_t > max(10.0, 5 * self.interval_s))
        if late or not dashboard_view.fresh(last, self.live_config):
            last = None
        return dashboard_view.readout_html(self.live_config, last, presenter=self.presenter,
                                           load_rps=None if self.load is None else
                                           self.load.rate)

    def load_lines(self) -> tuple[str, str, bool]:
        """The load line's two lines and whether the second is a warning: the load's state
        (with a guard: which way to move ``max_batch``), then what the guard did last or
        what the trainer should do ('' without a guard)."""
        if self.load is None:
            return "", "", False
        line = self.load.describe()
        if self.guard is None:
            return line, "", False
        hint = self.guard.hint(self.load.rate, self.live_config.get("max_batch"))
        return f"{line} · {hint}", self.guard.message, self.guard.warning

    def status(self) -> str:
        """The status line: the live config (and load) and the latest event."""
        verb = "service ran (last seen)" if self.gone else "service runs"
        text = f"{verb} {self._config_line()}"
        return text + (f" — {self.note}" if self.note else "")

    def _config_line(self) -> str:
        """The live config in one line, with the demo load's rate when there is one."""
        line = dashboard_view.describe(self.live_config)
        return line if self.load is None else f"{line} · load {load_text(self.load.rate)}"

    def _pending(self) -> dict:
        """Widget moves not sent yet."""
        return {} if self.view is None else self.view.pending

    def _show(self) -> None:
        """Every widget from the one state (no HTTP, no plot)."""
        if self.view is not None:
            self.view.show()

    def _draw(self) -> None:
        if self.view is not None:
            with self._lock:
                ok = len(self.samples) >= dashboard_view.MIN_SAMPLES
            if ok:
                self.view.draw(self.png())
                self.redraws += 1
            self._show()

    # ---- widgets ----------------------------------------------------------------------
    def widget(self, *, start: bool = True):
        """The dashboard's box (``dashboard_widgets``: knobs, presenter switch, load
        controls, readout, plot, status). Takes two samples before the first draw
        (``interval_s`` apart, at most 1 s); then polls in the background unless ``start``
        is False."""
        cfg = get_config(self.url, self._client)
        self.view = DashboardWidgets(self, cfg, debounce_s=self.debounce_s)
        self._adopt(cfg)
        threading.Thread(target=_pulse, args=(weakref.ref(self), self._closed,
                                              dashboard_view.DEAD_AFTER_S / 4),
                         name="dashboard-pulse", daemon=True).start()
        self.poll()
        time.sleep(min(self.interval_s, 1.0))
        self.refresh()  # the second sample: the first draw
        if start:
            self.start()
        return self.view.box

    def touched(self) -> None:
        """A widget moved: polls already out must not set it back (``poll``)."""
        with self._lock:
            self._seq += 1

    def said(self, note: str | None) -> None:
        """Show the state again, with ``note`` (when given) in the status line."""
        with self._lock:
            if note:
                self.note = note
            self._show()

    def redraw(self) -> None:
        """The plot again from the samples so far (e.g. at the other size), no poll."""
        self._draw()

    # ---- the poller -------------------------------------------------------------------
    def start(self) -> None:
        """Poll and redraw in a daemon thread until ``stop()`` (or ``max_duration_s``)."""
        if self.running:
            return
        with self._lock:
            if self._thread is not None:  # a restart: the "poller stopped" note is over
                self.note = f"poller restarted at {time.strftime('%H:%M:%S')}"
            self.gone = False
            self._show()
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="dashboard", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        """A slow or failed poll is shown and retried; only a service that has gone
        (``MAX_FAILURES`` connection refusals in a row) ends it early."""
        import httpx
        end = time.monotonic() + (self.max_duration_s or float("inf"))
        refused = 0
        while not self._stop.wait(self.interval_s) and time.monotonic() < end:
            self.beat += 1
            try:
                self.refresh()
                refused = 0
            except Exception as exc:
                refused = refused + 1 if isinstance(exc, httpx.ConnectError) else 0
                with self._lock:
                    self.gone = refused >= MAX_FAILURES
                    self.note = (f"polling {'stopped' if refused >= MAX_FAILURES else 'retrying'}"
                                 f": {type(exc).__name__}: {exc}")
                    self._show()
                if refused >= MAX_FAILURES:
                    return

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        """Stop polling (a pending slider move is sent first); then read the service once
        more so sliders, readout, title and status show what it runs now. The sliders
        still work; ``start()`` resumes."""
        if self.view is not None:
            self.view.flush()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(15)
        try:
            self.refresh()
        except Exception as exc:
            import httpx
            self.gone = isinstance(exc, httpx.ConnectError)
            self.note = f"poller stopped; the service did not answer: {exc}"
        else:
            self.note = f"poller stopped at {time.strftime('%H:%M:%S')}; dash.start() resumes"
        with self._lock:
            self._show()


def _pulse(ref, closed: threading.Event, every_s: float) -> None:
    """While the poller is stopped, bump the status line's heartbeat every ``every_s``
    (no HTTP): a page whose kernel died stops getting it and says it is disconnected."""
    while not closed.wait(every_s):
        dash = ref()
        if dash is None:
            return
        if not dash.running and dash.view is not None:
            with dash._lock:
                dash.beat += 1
                dash._show()
        del dash


def _shutdown(stop: threading.Event, client, closed: threading.Event) -> None:
    stop.set()
    closed.set()
    client.close()
