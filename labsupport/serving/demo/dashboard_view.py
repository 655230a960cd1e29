"""What the live dashboard shows: its widgets (knobs, presenter switch, load controls: pause
and a rate slider), the readout tiles, the status line, and its figure: four panels of a
service's ``/stats`` samples (queue, mean batch, p50/p99 latency, completed and rejected
requests per second on two axes) with a dotted line at every config change, named. Sizes
come from ``labsupport.projector`` (normal or presenter). No pyplot: safe off the main
thread."""
from __future__ import annotations

import html
import math
import re

from ...batching.config import in_use, knobs
from ...projector import drawing, style, tiles_html
from ...projector import title as set_title

PANELS = (("queue_depth", "queue (texts)"), ("mean_batch", "mean batch size"),
          ("latency", "latency (ms)"), ("throughput_rps", "completed (req/s)"))
MIN_SAMPLES = 2  # one sample draws no line: the plot waits for two
GAP_S = 10.0     # samples further apart than this (the poller was stopped) break the lines
HISTORY_S = 120.0  # the plot draws the last two minutes: a pause long ago takes no room
MAX_MARKS = 4    # the plot marks and names only the latest changes within HISTORY_S: a
# trainer's burst of moves leaves four readable labels, not a thicket
HEIGHT_IN = {False: 4.5, True: 3.9}  # figure height (in) at normal / presenter size: with
# the controls, readout and status lines the dashboard fits JupyterLab's ~680 px notebook
# area at 1280×800 (the figure shows 82 px per inch there)
DEAD_AFTER_S = 12.0  # no status update for this long: the page says the kernel is gone


def describe(cfg: dict) -> str:
    """The config in one short line, the knobs in use under its policy (``knobs``):
    ``max_batch=16 · max_delay_ms=5 · max_queue=256 · window``."""
    if not cfg:
        return "config not read yet"
    return " · ".join(str(v) if k == "policy" else f"{k}={_value(v)}"
                      for k, v in in_use(cfg).items())


def _value(v, unit: str = "") -> str:
    """A knob's value as shown: ``5``, ``12.5 ms``, ``8,16,32``."""
    text = (",".join(map(str, v)) if isinstance(v, (list, tuple)) else
            f"{v:g}" if isinstance(v, float) else str(v))
    return f"{text} {unit}" if unit else text


def change_label(old: dict, new: dict) -> str:
    """What changed between two configs, e.g. ``max_batch 16→1`` ('' if nothing did)."""
    fmt = lambda v: f"{v:g}" if isinstance(v, float) else str(v)  # noqa: E731
    return ", ".join(f"{k} {fmt(old.get(k))}→{fmt(v)}" for k, v in new.items()
                     if old.get(k) != v)


SHORT = {"max_batch": "batch", "max_delay_ms": "delay", "max_queue": "queue",
         "load_rps": "load"}


def mark_label(old: dict, new: dict) -> str:
    """A change as the plot names it, short enough to stand in a panel: ``batch→1 delay→9``
    (a policy by its name); '' if nothing changed."""
    fmt = lambda v: f"{v:g}" if isinstance(v, float) else str(v)  # noqa: E731
    return " ".join(fmt(v) if k == "policy" else f"{SHORT.get(k, k)}→{fmt(v)}"
                    for k, v in new.items() if old.get(k) != v)


def figure(samples: list[dict], marks: list[tuple[float, str]], cfg: dict, *,
           presenter: bool = False, title: str | None = None):
    """The dashboard's figure: ``samples`` (``/stats`` dicts), ``marks`` ``(t, label)`` on
    the service's clock, ``cfg`` (the live config) in the title; four panels, at the
    presenter size queue and latency only."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator
    if samples:  # the recent past only (``HISTORY_S``), its latest changes (``MAX_MARKS``)
        first = samples[-1]["t"] - HISTORY_S
        samples = [s for s in samples if s["t"] >= first]
        t0, t1 = samples[0]["t"], samples[-1]["t"]
        marks = [m for m in marks if t0 <= m[0] <= t1][-MAX_MARKS:]
    with drawing(presenter) as st:
        fig = st.figure(HEIGHT_IN[presenter])
        # presenter: the two panels that tell the story (queue, latency), large enough for
        # its text on one screen; the readout above gives batch, completed and 429s
        panels = (PANELS[0], PANELS[2]) if presenter else PANELS
        axes = fig.subplots(*((1, 2) if presenter else (2, 2)), sharex=True).ravel()
        axes_top = set_title(fig, title or describe(cfg), st)
        if len(samples) < MIN_SAMPLES:
            fig.text(0.5, 0.5, "waiting for the second sample…", ha="center", va="center")
            for ax in axes:
                ax.set_visible(False)
            return fig
        t = [s["t"] for s in samples]
        line = lambda ax, ys, **kw: ax.plot(*_broken(t, ys), **kw)  # noqa: E731
        for ax, (key, label) in zip(axes, panels):
            if key == "latency":
                line(ax, [_nan(s["p50_ms"]) for s in samples], color="C0", label="p50")
                line(ax, [_nan(s["p99_ms"]) for s in samples], color="C1", label="p99")
                ax.yaxis.set_major_formatter(FuncFormatter(_short))  # "12k": a 5-digit
                # tick would push the axis label off the figure's edge at the presenter size
                ax.legend(loc="upper left", ncols=1 if presenter else 2)
            elif key == "throughput_rps":
                line(ax, [s[key] for s in samples], color="C2")
                ax.yaxis.label.set_color("C2")
                rej = ax.twinx()  # 429s on their own axis: a big burst must not flatten the rest
                line(rej, [s["rejected_rps"] for s in samples], color="C3", ls="--")
                rej.set_ylabel("rejected (429/s)", color="C3")
                rej.tick_params(axis="y", colors="C3")
                rej.yaxis.set_major_locator(MaxNLocator(4, integer=True))
                rej.set_ylim(0, max(4.0, 1.15 * max(s["rejected_rps"] for s in samples)))
            elif key == "mean_batch":  # no batch ran (a paused load): no point, not a 0
                line(ax, [_nan(s[key] if s.get("batches") != 0 else None) for s in samples],
                     color="C0")
            else:
                line(ax, [s[key] for s in samples], color="C4")
            ax.set_ylabel(label)
            counts = key in ("queue_depth", "mean_batch")
            ax.yaxis.set_major_locator(MaxNLocator(5, integer=counts))
            top = ax.get_ylim()[1] * (1.3 if key in ("latency", "throughput_rps") else 1.05)
            ax.set_ylim(0, max(top, 4.0 if counts else 1.0))
            ax.grid(alpha=0.3)
            for tc, _ in marks:
                ax.axvline(tc, color="0.35", lw=0.7 * st.line_w, ls=":")
        gap, last = 0.06 * (t[-1] - t[0]), math.inf  # labels closer than this would overlap
        for tc, text in reversed(marks):  # the latest changes, named in the first panel
            # (read upwards from the bottom: a label too long for the panel loses its end)
            if last - tc > gap:
                axes[0].annotate(text, (tc, 0.0), xycoords=("data", "axes fraction"),
                                 xytext=(-4, 4), textcoords="offset points", rotation=90,
                                 ha="right", va="bottom", color="0.2", clip_on=True,
                                 bbox={"fc": "white", "ec": "none", "alpha": 0.8, "pad": 1})
                last = tc
        for ax in axes[-2:]:
            ax.set_xlabel("service clock (s)")
        axes[0].xaxis.set_major_locator(MaxNLocator(4 if presenter else 6))  # shared: no
        # tick labels running into each other ("100150200") at the presenter size
        grow = st.text_px / 16.0  # margins for the labels grow with the text
        fig.subplots_adjust(left=0.09 * grow, right=1 - 0.09 * grow, top=axes_top,
                            bottom=0.15 * grow, hspace=0.2 * grow, wspace=0.3 * grow)
        return fig


LOAD_LABEL = "load (req/s)"  # the load slider's name and its readout tile's


def load_text(rate: float) -> str:
    """The demo load's rate as every surface shows it: ``40 req/s``."""
    return f"{rate:g} req/s"


def load_range(rate: float) -> tuple[float, float, float]:
    """The load slider's ``(min, max, step)`` around a starting ``rate`` (req/s): a tenth
    to twice it, in a 1-2-5 step of at least a hundredth of the top (a drag of a few
    pixels changes it visibly, never by a fraction nobody can read)."""
    top = 2.0 * rate
    step = min(v for v in (m * 10.0 ** e for e in range(-2, 6) for m in (1, 2, 5))
               if v >= top / 100)
    lo = max(step, round(0.1 * rate / step) * step)
    return round(lo, 6), round(math.ceil(top / step) * step, 6), step


def fresh(sample: dict | None, cfg: dict) -> bool:
    """Whether ``sample``'s numbers belong to ``cfg``: it ran ``cfg`` for its whole window
    (a window that spans a change mixes two settings)."""
    if not sample or not cfg or sample.get("config") != cfg:
        return False
    changed = sample.get("config_changed_t")
    return changed is None or changed <= sample["t"] - sample.get("window_s", 0.0)


def readout_html(cfg: dict, sample: dict | None, *, presenter: bool = False,
                 load_rps: float | None = None) -> str:
    """Two rows of tiles: the live config, then the last sample's numbers (after the
    demo load's rate, when there is one: offered beside completed); at the presenter size
    the numbers only. ``sample`` None: the numbers are stale (every tile "–")."""
    fmt = lambda v, unit="": "–" if v is None or v != v else f"{v:.0f}{unit}"  # noqa: E731
    units = {k.name: k.unit for k in knobs()}
    config_row = ([(k, _value(v, units[k])) for k, v in in_use(cfg).items()] if cfg else
                  [(k.name, "–") for k in knobs() if k.used_by is None and k.default is not None])
    s = sample or {}
    numbers = [("queue", str(s.get("queue_depth", "–"))),
               ("mean batch", f"{s['mean_batch']:.1f}" if s and s.get("batches") != 0 else "–"),
               ("p50", _latency(s.get("p50_ms"))), ("p99", _latency(s.get("p99_ms"))),
               *([] if load_rps is None else [(LOAD_LABEL, f"{load_rps:g}")]),
               ("completed/s", fmt(s.get("throughput_rps"))),
               ("rejected/s", fmt(s.get("rejected_rps")))]
    # at the presenter size the config row goes: the sliders right above and the plot's
    # title say it, and the numbers keep their room on one screen
    return tiles_html([numbers] if presenter else [config_row, numbers], presenter=presenter)


def _latency(v: float | None) -> str:
    """A latency tile's text from ms: "–" when unknown, seconds from 1 s on ("3.3 s" fits a
    tile at the presenter size; "3268 ms" is clipped, seven tiles sharing a row)."""
    if v is None or v != v:
        return "–"
    return f"{v:.0f} ms" if v < 999.5 else f"{v / 1000:.1f} s"


def _nan(v) -> float:
    return math.nan if v is None else v


def _short(v: float, _pos=None) -> str:
    """A tick label in thousands from 10 000 on (``12k``, ``12.5k``): narrower than 12500."""
    return f"{v / 1000:g}k" if abs(v) >= 10_000 else f"{v:g}"


def _broken(t: list[float], ys: list[float]) -> tuple[list[float], list[float]]:
    """``t``, ``ys`` with a NaN between two samples more than ``GAP_S`` apart: no straight
    line across the minutes the poller was stopped, which would read as a slow trend."""
    xs, out = [], []
    for i, (x, y) in enumerate(zip(t, ys)):
        if i and x - t[i - 1] > GAP_S:
            xs.append(0.5 * (x + t[i - 1]))
            out.append(math.nan)
        xs.append(x)
        out.append(y)
    return xs, out


LINE_EM = 1.3  # line height of the load and status lines (em of their text)


def _clip(text: str, lines: int, extra: str = "") -> str:
    """``text`` in a box exactly ``lines`` lines tall whatever it holds (a longer text ends
    in "…"; its whole is the tooltip): the dashboard's height never depends on a message."""
    full = html.escape(re.sub(r"<[^>]+>", " ", text), quote=True)
    return (f"<div title='{full}' style='display:-webkit-box;-webkit-box-orient:vertical;"
            f"-webkit-line-clamp:{lines};overflow:hidden;line-height:{LINE_EM};"
            f"height:{lines * LINE_EM}em;{extra}'>{text}</div>")


def line_px(presenter: bool) -> int:
    """The load and status lines' text (CSS px), a little smaller than the readout's."""
    return round(0.8 * style(presenter).readout_px)


def load_html(state: str, message: str, warning: bool, *, presenter: bool = False) -> str:
    """The load line: two lines, always: the load's ``state`` (which way to move), then
    what the guard did or, in red when ``warning``, what the trainer should do."""
    second = _clip(message, 1, "color:#b00;font-weight:600;" if warning else "")
    return (f"<div class='lab-load' style='font-size:{line_px(presenter)}px'>"
            f"{_clip(state, 1)}{second}</div>")


def status_html(text: str, beat: int, *, presenter: bool = False) -> str:
    """The status line (two lines tall, always) with a heartbeat: ``beat`` (bumped by the
    poller, or by a slow pulse while it is stopped) changes the HTML, so each update
    replaces the element and restarts its timer; a line not replaced for ``DEAD_AFTER_S``
    (the kernel restarted or shut down: nobody updates it) is covered by a line that says
    it is disconnected, in the same room. CSS only, nothing runs in the page."""
    return (f"<div class='lab-status' data-beat='{beat}' style='position:relative;"
            f"font-size:{line_px(presenter)}px'>"
            f"<div class='lab-live'>{_clip(text, 2)}</div>"
            f"<div class='lab-dead' style='position:absolute;inset:0;background:#fff;"
            f"color:#b00;font-weight:600;opacity:0;visibility:hidden;"
            f"animation:lab-dead 0.01s linear {DEAD_AFTER_S:g}s forwards'>"
            f"{_clip(DISCONNECTED, 2)}</div></div>")


DISCONNECTED = ("disconnected: this dashboard's kernel stopped (restarted or shut down); the "
                "numbers above are its last. Rerun the notebook for a live one.")


def widget_css(presenter: bool) -> str:
    """CSS for the dashboard's own widgets (inside ``.lab-dash``): their text at
    ``Style.widget_px``, taller rows and bigger handles at the presenter size; the
    keyframes of the disconnected line (``status_html``)."""
    st = style(presenter)
    px, row = st.widget_px, round(1.9 * st.widget_px)
    return ("<style>"
            f".lab-dash {{--jp-widgets-font-size:{px}px;--jp-widgets-inline-height:{row}px;"
            f"--jp-ui-font-size1:{px}px}}"
            f".lab-dash .widget-inline-hbox,.lab-dash .widget-label,.lab-dash .widget-readout,"
            f".lab-dash select,.lab-dash button {{font-size:{px}px}}"
            f".lab-dash .noUi-handle {{transform:scale({px / 13:.2f})}}"
            "@keyframes lab-dead {to {opacity:1;visibility:visible}}"
            "</style>")


def knob_widgets(cfg: dict) -> dict:
    """The service's knobs as widgets, one for each knob with a slider or a menu in the one
    knob list (``batching.config.knobs``; the SLO's slider too, for ``adaptive``): an integer
    knob offers the powers of two in its range (``max_batch``: 1, 2, 4 … 64), a float knob
    moves in its step (``max_delay_ms``: 1 ms), a knob with choices is a menu (``policy``).
    Widths in em: they grow with the text at the presenter size."""
    import ipywidgets as W
    sty = {"description_width": "initial"}
    out = {}
    for k in knobs():
        value = cfg[k.name]
        common = dict(description=k.name, style=sty, tooltip=k.help)
        if k.choices:
            out[k.name] = W.Dropdown(options=list(k.choices), value=value,
                                     layout=W.Layout(width="13em"), **common)
        elif k.slider and k.parse is int:
            lo, hi, _ = k.slider
            steps = sorted({2 ** i for i in range(hi.bit_length()) if lo <= 2 ** i <= hi} | {value})
            out[k.name] = W.SelectionSlider(options=steps, value=value, continuous_update=False,
                                            layout=W.Layout(width="15em"), **common)
        elif k.slider:
            lo, hi, step = k.slider
            out[k.name] = W.FloatSlider(value=value, min=min(lo, value), max=max(hi, value),
                                        step=step, readout_format=".3g", continuous_update=False,
                                        layout=W.Layout(width="17em"), **common)
    return out


def controls(cfg: dict, *, presenter: bool,
             load_rps: float | None) -> tuple[dict, object]:
    """The dashboard's widgets, named (the knobs of ``knob_widgets``, ``presenter``,
    ``readout``, ``image``, ``status``, ``css``; with a load at ``load_rps`` req/s also
    ``pause``, ``load_rps`` (its slider) and ``load``), and the box that lays them out:
    one wrapping row of controls, the load line, the readout, the plot and the status line
    (645 px tall at 1280×800, 655 at the presenter size: JupyterLab's notebook area is
    679 px)."""
    import ipywidgets as W
    sty = {"description_width": "initial"}
    knobs = knob_widgets(cfg)
    w = {**knobs,
         "presenter": W.ToggleButton(value=presenter, description="presenter",
                                     tooltip="bigger text and lines for a projector",
                                     layout=W.Layout(width="auto")),
         "image": W.Image(format="png", layout=W.Layout(width="100%")),
         "readout": W.HTML(), "status": W.HTML(), "css": W.HTML(widget_css(presenter))}
    menus = [v for v in knobs.values() if isinstance(v, W.Dropdown)]  # after the sliders:
    # one wrapping row fills each line (two lines at 1280 px, three at the presenter size)
    sliders = [v for v in knobs.values() if v not in menus]
    buttons = [w["presenter"]]
    if load_rps is not None:
        lo, hi, step = load_range(load_rps)
        w["pause"] = W.ToggleButton(description="pause load", icon="pause",
                                    layout=W.Layout(width="auto"))
        w["load_rps"] = W.FloatSlider(value=load_rps, min=min(lo, load_rps),
                                      max=max(hi, load_rps), step=step,
                                      description=LOAD_LABEL, style=sty,
                                      readout_format=".4",  # d3: 20, 7.5 (no 20.00)
                                      continuous_update=False,
                                      layout=W.Layout(width="20em"))  # a longer track:
        # a drag moves the rate by steps the trainer can aim
        w["load"] = W.HTML()
        buttons = [w["pause"], w["load_rps"], w["presenter"]]
    row = W.HBox([*sliders, *menus, *buttons], layout=W.Layout(flex_flow="row wrap"))
    box = W.VBox([w["css"], row, *([w["load"]] if load_rps is not None else []),
                  w["readout"], w["image"], w["status"]])  # the load line (what the guard
    # did, which way to move) under its controls: on screen with them
    box.add_class("lab-dash")
    return w, box
