"""A live dashboard for a running ``labsupport serve``: sliders for ``max_batch`` /
``max_delay_ms`` and a policy menu on the running service, a readout, a four-panel plot of
its ``/stats`` and a status line; optionally the demo load's state with a pause button and
a rate slider.

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
way. A burst of slider moves (keyboard steps, a drag) becomes one ``POST /config`` (or one
``set_rate``) after ``debounce_s`` of quiet. Each change the service reports, and each new
load rate, is marked on the plot at the service's own time. The plot waits for two samples
before its first draw.

With a load and the capacities measured before (``capacity``), a ``measure.LoadGuard``
watches every sample: when ``max_batch`` 16 stops keeping up (the machine got busier) it
lowers the load, when 1 keeps up it raises it, and the load line says so and why; a hint
line says which way to move ``max_batch``. The readout's numbers show "–" when they are
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

from ...batching.config import knobs
from ..net import check_loopback, get_config, post_config
from ...projector import image, png
from ...validate import check_float
from . import dashboard_view
from .dashboard_view import load_text
from .debounce import Debounce
from .measure import LoadGuard

MAX_FAILURES = 3  # connection refusals in a row before the poller decides the service is gone
KNOBS = tuple(k.name for k in knobs() if k.slider or k.choices)  # what the widgets set
LOAD_KNOB = "load_rps"  # the demo load's rate slider (req/s)


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
        self.polls = 0               # samples read so far
        self._beat = 0               # poller rounds (failed ones too): the page's heartbeat
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
        self._moves = Debounce(self._send, debounce_s)  # slider moves not sent yet
        self._tls = threading.local()  # .syncing: widget values set by the dashboard itself
        self._client = httpx.Client(timeout=5, trust_env=False)
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._w: dict = {}
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
            if seq == self._seq and not self._moves.pending:
                self._adopt(s["config"], outside=True)
        return s

    def _keep_contrast(self, s: dict) -> None:
        """Let the guard judge the sample; a new rate goes to the load, marked and said."""
        if self.guard is None or self._moves.pending:
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
        if not self.running and self._w:
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
        if not self.running and self._w:
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

    def load_line(self) -> str:
        """The load's state; with a guard, what it did last and which way to move."""
        if self.load is None:
            return ""
        line = self.load.describe()
        if self.guard is not None:
            if self.guard.message:
                line += f" · {self.guard.message}"
            line += f"<br>{self.guard.hint(self.load.rate, self.live_config.get('max_batch'))}"
        return line

    def status(self) -> str:
        """The status line: the live config (and load) and the latest event."""
        verb = "service ran (last seen)" if self.gone else "service runs"
        text = f"{verb} {self._config_line()}"
        return text + (f" — {self.note}" if self.note else "")

    def _config_line(self) -> str:
        """The live config in one line, with the demo load's rate when there is one."""
        line = dashboard_view.describe(self.live_config)
        return line if self.load is None else f"{line} · load {load_text(self.load.rate)}"

    def _show(self) -> None:
        """Sliders, readout, status and load line from the one state (no HTTP, no plot)."""
        if not self._w:
            return
        w, cfg = self._w, self.live_config
        self._tls.syncing = True
        try:
            pending = self._moves.pending  # a move not sent yet stays where the user put it
            for name in KNOBS:
                if name in cfg and name not in pending:
                    _show_value(w[name], cfg[name])
            if self.load is not None and LOAD_KNOB not in pending:
                _show_value(w[LOAD_KNOB], self.load.rate)
            if self.load is not None:
                w["pause"].value = bool(self.load.paused)
                w["pause"].description = "resume load" if self.load.paused else "pause load"
                w["pause"].icon = "play" if self.load.paused else "pause"
        finally:
            self._tls.syncing = False
        w["readout"].value = self.readout()
        w["status"].value = dashboard_view.status_html(
            self.status(), self._beat, presenter=self.presenter)
        if self.load is not None:
            w["load"].value = dashboard_view.line_html(self.load_line(), "lab-load",
                                                       presenter=self.presenter)

    def _draw(self) -> None:
        if "image" in self._w:
            with self._lock:
                ok = len(self.samples) >= dashboard_view.MIN_SAMPLES
            if ok:
                self._w["image"].value = self.png()
                self.redraws += 1
            self._show()

    # ---- widgets ----------------------------------------------------------------------
    def widget(self, *, start: bool = True):
        """Sliders, policy menu, presenter switch, (load controls), readout, plot, status.
        Takes two samples before the first draw (``interval_s`` apart, at most 1 s)."""
        cfg = get_config(self.url, self._client)
        self._w, box = dashboard_view.controls(
            cfg, presenter=self.presenter,
            load_rps=None if self.load is None else self.load.rate)
        for name in KNOBS + ((LOAD_KNOB,) if self.load is not None else ()):
            self._w[name].observe(self._on_knob, names="value")
        self._w["presenter"].observe(self._on_presenter, names="value")
        if self.load is not None:
            self._w["pause"].observe(self._on_pause, names="value")
        self._adopt(cfg)
        threading.Thread(target=_pulse, args=(weakref.ref(self), self._closed,
                                              dashboard_view.DEAD_AFTER_S / 4),
                         name="dashboard-pulse", daemon=True).start()
        self.poll()
        time.sleep(min(self.interval_s, 1.0))
        self.refresh()  # the second sample: the first draw
        if start:
            self.start()
        return box

    def _on_knob(self, change) -> None:
        """A user moved a knob: remember it and post once the moves stop."""
        if getattr(self._tls, "syncing", False):
            return  # the service's own value, shown by _show(): nothing to post
        with self._lock:
            self._seq += 1  # polls already out must not set the slider back
        name = next(k for k, w in self._w.items() if w is change["owner"])
        self._moves.add(name, change["new"])

    def _send(self, **knobs) -> None:
        """Post the debounced knobs as one change (the load's rate to the load); a refusal
        is shown, never raised."""
        rate = knobs.pop(LOAD_KNOB, None)
        try:
            if rate is not None:
                self.set_load_rate(rate)
            if knobs:
                self.configure(**knobs)
        except Exception as exc:  # shown in the status line; the widget keeps working
            with self._lock:
                self.note = f"config refused: {exc}"
                self._show()

    def _on_presenter(self, change) -> None:
        self.presenter = bool(change["new"])
        self._w["css"].value = dashboard_view.widget_css(self.presenter)
        self._draw()

    def _on_pause(self, change) -> None:
        if getattr(self._tls, "syncing", False) or self.load is None:
            return
        (self.load.pause if change["new"] else self.load.resume)()
        if not change["new"] and self._w:
            self.start()  # resuming the load brings a stopped plot back too (one button)
        with self._lock:
            self._show()

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
            self._beat += 1
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
        self._moves.flush()
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


def _show_value(slider, value) -> None:
    """Set a widget to ``value``, first widening a slider's range (or choices) that cannot
    hold it."""
    if slider.value == value:
        return
    options = getattr(slider, "options", None)
    if options is not None and value not in options and isinstance(value, int):
        slider.options = sorted(set(options) | {value})
    if getattr(slider, "max", value) < value:
        slider.max = value
    if getattr(slider, "min", value) > value:
        slider.min = value
    slider.value = value


def _pulse(ref, closed: threading.Event, every_s: float) -> None:
    """While the poller is stopped, bump the status line's heartbeat every ``every_s``
    (no HTTP): a page whose kernel died stops getting it and says it is disconnected."""
    while not closed.wait(every_s):
        dash = ref()
        if dash is None:
            return
        if not dash.running and dash._w:
            with dash._lock:
                dash._beat += 1
                dash._show()
        del dash


def _shutdown(stop: threading.Event, client, closed: threading.Event) -> None:
    stop.set()
    closed.set()
    client.close()
