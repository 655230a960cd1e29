"""A live dashboard for a running ``labsupport serve``: queue depth, batch size, p50/p99
latency and throughput, redrawn as the service's ``/stats`` change, with sliders that POST
new ``max_batch`` / ``max_delay_ms`` to the running service. The sliders always show the
service's *live* config: read from ``/config`` at start and after each change, and from
every ``/stats`` poll (so a change made elsewhere, by another cell or client, shows too).

    dash = Dashboard(svc.url)
    display(dash.widget())   # sliders + live plot + readout; a background thread polls
    ...
    dash.figure()            # a static matplotlib figure of everything polled so far

The poller is a daemon thread, bounded by ``max_duration_s`` and stopped by ``stop()``,
by garbage collection or at interpreter exit. A failed poll (a swamped service timing out)
is retried, not fatal; when polling ends the sliders read ``/config`` one last time. Drawing uses matplotlib's Agg canvas
(no pyplot), so it is safe off the main thread.
"""
from __future__ import annotations

import io
import threading
import time
import weakref
from collections import deque

from ..net import check_loopback, get_config, post_config
from ...batching.policies import POLICIES
from ...validate import check_float

MAX_FAILURES = 3  # connection refusals in a row before the poller decides the service is gone
PANELS = (("queue_depth", "queue depth (texts)"), ("mean_batch", "mean batch size"),
          ("latency", "latency (ms)"), ("throughput_rps", "throughput (req/s)"))


class Dashboard:
    """Polls ``url``/stats every ``interval_s``; keeps the last ``history`` samples."""

    def __init__(self, url: str, *, interval_s: float = 1.0, window_s: float = 1.0,
                 history: int = 240, max_duration_s: float = 600.0):
        import httpx
        self.url = check_loopback(url)
        self.interval_s = check_float("interval_s", interval_s, 0.05, 60.0)
        self.window_s = check_float("window_s", window_s, 0.2, 60.0)
        self.max_duration_s = check_float("max_duration_s", max_duration_s, 1.0, 3600.0)
        self.samples: deque[dict] = deque(maxlen=history)
        self.changes: list[tuple[float, dict]] = []  # (t, config) after each slider move
        self.redraws = 0
        self.live_config: dict = {}  # the service's config as last seen
        self._seq = 0                # bumped by every configure(): stale polls don't sync
        self._tls = threading.local()  # .syncing: slider moves made by sync(), not a user
        self._client = httpx.Client(timeout=5, trust_env=False)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._w: dict = {}
        self._finalizer = weakref.finalize(self, _shutdown, self._stop, self._client)

    # ---- data -------------------------------------------------------------------------
    def poll(self) -> dict:
        """One ``/stats`` sample (also stored); the sliders follow its live config."""
        seq = self._seq
        s = self._client.get(self.url + "/stats", params={"window_s": self.window_s}).json()
        for k in ("p50_ms", "p99_ms"):
            s[k] = float("nan") if s[k] is None else s[k]  # null: nothing finished
        with self._lock:
            self.samples.append(s)
        if seq == self._seq:  # no configure() since this request left: it is current
            self.sync(s["config"])
        return s

    def sync(self, cfg: dict) -> None:
        """Show the service's live ``cfg`` on the sliders (without posting it back)."""
        outside = bool(self.live_config) and cfg != self.live_config
        self.live_config = dict(cfg)
        if not self._w:
            return
        self._tls.syncing = True
        try:
            for name in ("max_batch", "max_delay_ms", "policy"):
                w, v = self._w[name], cfg[name]
                if getattr(w, "max", v) < v:  # a value beyond the slider: widen it
                    w.max = v
                if w.value != v:
                    w.value = v
        finally:
            self._tls.syncing = False
        if outside:
            self._w["status"].value = f"service config changed elsewhere: now {cfg}"

    def configure(self, **knobs) -> dict:
        """POST ``knobs`` to ``/config``; raises ValueError with the service's message."""
        self._seq += 1
        try:
            cfg = post_config(self.url, knobs, self._client)
        except ValueError:
            self.sync(get_config(self.url, self._client))  # refused: show what still runs
            raise
        self.live_config = dict(cfg)
        self.sync(cfg)
        t = self.samples[-1]["t"] if self.samples else 0.0
        with self._lock:
            self.changes.append((t, cfg))
        return cfg

    def sample(self, seconds: float) -> list[dict]:
        """Poll for ``seconds`` (in the foreground) and return those samples."""
        out, end = [], time.monotonic() + check_float("seconds", seconds, 0.0, 120.0)
        while time.monotonic() < end:
            out.append(self.poll())
            time.sleep(self.interval_s)
        return out

    # ---- drawing ----------------------------------------------------------------------
    def figure(self, title: str | None = None):
        """A matplotlib ``Figure`` of the samples so far (no pyplot: thread-safe)."""
        from matplotlib.figure import Figure
        with self._lock:
            ss, changes = list(self.samples), list(self.changes)
        fig = Figure(figsize=(10, 5.2), dpi=64)
        axes = fig.subplots(2, 2, sharex=True).ravel()
        t = [s["t"] for s in ss]
        for ax, (key, label) in zip(axes, PANELS):
            if key == "latency":
                ax.plot(t, [s["p50_ms"] for s in ss], label="p50")
                ax.plot(t, [s["p99_ms"] for s in ss], label="p99")
                ax.legend(loc="upper left", fontsize=8)
            else:
                ax.plot(t, [s[key] for s in ss], color="C2" if key == "queue_depth" else "C0")
            if key == "throughput_rps" and any(s["rejected_rps"] for s in ss):
                ax.plot(t, [s["rejected_rps"] for s in ss], color="C3", label="rejected (429)")
                ax.legend(loc="upper left", fontsize=8)
            for tc, _ in changes:
                ax.axvline(tc, color="grey", lw=0.8, ls="--")
            ax.set_ylabel(label, fontsize=9)
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
        for ax in axes[2:]:
            ax.set_xlabel("service time (s)", fontsize=9)
        cfg = ss[-1]["config"] if ss else {}
        fig.suptitle(title or "live service: " + ", ".join(f"{k}={v}" for k, v in cfg.items()),
                     fontsize=10)
        fig.subplots_adjust(left=0.07, right=0.98, top=0.92, bottom=0.1, hspace=0.12, wspace=0.18)
        return fig

    def png(self) -> bytes:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        buf = io.BytesIO()
        FigureCanvasAgg(self.figure()).print_png(buf)
        return buf.getvalue()

    def readout(self) -> str:
        """One line: current knobs and the last sample's numbers."""
        if not self.samples:
            return "no samples yet"
        s = self.samples[-1]
        c = s["config"]
        fmt = lambda v: "–" if v != v else f"{v:.1f}"  # NaN when nothing finished
        return (f"max_batch={c['max_batch']} · max_delay_ms={c['max_delay_ms']:g} · "
                f"policy={c['policy']} | queue {s['queue_depth']} · batch "
                f"{s['mean_batch']:.1f} · p50 {fmt(s['p50_ms'])} ms · p99 {fmt(s['p99_ms'])} ms"
                f" · {s['throughput_rps']:.0f} req/s · 429/s {s['rejected_rps']:.0f}")

    # ---- widgets ----------------------------------------------------------------------
    def widget(self, *, start: bool = True):
        """Sliders (``max_batch``, ``max_delay_ms``), a policy menu, the live plot and a
        readout. Moving a slider reconfigures the running service at once."""
        import ipywidgets as W
        cfg = get_config(self.url, self._client)
        self.live_config = dict(cfg)
        style = {"description_width": "initial"}
        w = self._w
        w["max_batch"] = W.IntSlider(value=cfg["max_batch"], min=1, max=64, step=1,
                                     description="max_batch", style=style,
                                     continuous_update=False)
        w["max_delay_ms"] = W.FloatSlider(value=cfg["max_delay_ms"], min=0.0, max=50.0,
                                          step=0.5, description="max_delay_ms", style=style,
                                          continuous_update=False)
        w["policy"] = W.Dropdown(options=sorted(POLICIES),
                                 value=cfg["policy"], description="policy", style=style)
        w["image"] = W.Image(format="png", layout=W.Layout(width="100%", max_width="760px"))
        w["readout"] = W.HTML(value="starting…")
        w["status"] = W.HTML(value="")
        for name in ("max_batch", "max_delay_ms", "policy"):
            w[name].observe(self._on_knob, names="value")
        self.poll()
        self._redraw()
        box = W.VBox([W.HBox([w["max_batch"], w["max_delay_ms"], w["policy"]]),
                      w["readout"], w["image"], w["status"]])
        if start:
            self.start()
        return box

    def _on_knob(self, change) -> None:
        if getattr(self._tls, "syncing", False):
            return  # the service's own value, shown by sync(): nothing to post
        name = change["owner"].description
        try:
            cfg = self.configure(**{name: change["new"]})
            self._w["status"].value = f"service now runs with {cfg}"
        except Exception as exc:  # show it; never kill the widget
            self._w["status"].value = f"<b>config refused</b>: {exc}"
        try:
            self.poll()
        except Exception:
            pass
        self._redraw()

    def _redraw(self) -> None:
        if "image" in self._w:
            self._w["image"].value = self.png()
            self._w["readout"].value = self.readout()
            self.redraws += 1

    # ---- the poller -------------------------------------------------------------------
    def start(self) -> None:
        """Poll and redraw in a daemon thread until ``stop()`` or ``max_duration_s``."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="dashboard", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        """A slow or failed poll (a swamped service) is shown and retried: a poller that
        stopped would leave the sliders showing an old config. Only a service that has
        gone (``MAX_FAILURES`` connection refusals in a row) ends it early."""
        import httpx
        end, refused = time.monotonic() + self.max_duration_s, 0
        while not self._stop.wait(self.interval_s):
            if time.monotonic() > end:
                break
            try:
                self.poll()
                self._redraw()
                refused = 0
            except Exception as exc:
                refused = refused + 1 if isinstance(exc, httpx.ConnectError) else 0
                gone = refused >= MAX_FAILURES
                if "status" in self._w:
                    self._w["status"].value = (f"polling {'stopped' if gone else 'retrying'}:"
                                               f" {type(exc).__name__}: {exc}")
                if gone:
                    break
        self._final_sync()

    def _final_sync(self) -> None:
        """When polling ends, show the live config one last time (and say it may age)."""
        try:
            self.sync(get_config(self.url, self._client))
        except Exception:
            return
        if "status" in self._w:
            self._w["status"].value = ("poller stopped; sliders show the config at "
                                       f"{time.strftime('%H:%M:%S')}: {self.live_config}")

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        """Stop polling; the sliders then show the live config as of now and still work."""
        self._stop.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(15)  # its last act: _final_sync()
        else:
            self._final_sync()


def _shutdown(stop: threading.Event, client) -> None:
    stop.set()
    client.close()


def md_table(rows, digits: int = 1) -> str:
    """A Markdown table of a list of dicts (or of one dict as name/value rows); numbers
    rounded to ``digits``; None/NaN shown as –."""
    if isinstance(rows, dict):
        rows = [{"": k, "value": v} for k, v in rows.items()]
    cols = list(dict.fromkeys(k for r in rows for k in r))

    def cell(v) -> str:
        if v is None or (isinstance(v, float) and v != v):
            return "–"
        if isinstance(v, float):
            return f"{v:.{digits}f}"
        return str(v).replace("|", "\\|")
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(cell(r.get(c)) for c in cols) + " |" for r in rows]
    return "\n".join(lines)
