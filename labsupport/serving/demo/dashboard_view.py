"""What the live dashboard shows: its widgets (knobs, presenter switch, load controls), the
readout tiles, the status line, and its figure: four panels of a service's ``/stats``
samples (queue, mean batch, p50/p99 latency, completed and rejected requests per second on
two axes) with a dotted line at every config change, named. Sizes come from
``labsupport.projector`` (normal or presenter). No pyplot: safe off the main thread."""
from __future__ import annotations

import math

from ...batching.policies import POLICIES
from ...projector import drawing, style, tiles_html
from ...projector import title as set_title

PANELS = (("queue_depth", "queue (texts)"), ("mean_batch", "mean batch size"),
          ("latency", "latency (ms)"), ("throughput_rps", "completed (req/s)"))
MIN_SAMPLES = 2  # one sample draws no line: the plot waits for two


def describe(cfg: dict) -> str:
    """The config in one short line: ``max_batch=16 · max_delay_ms=5 · work_conserving``."""
    if not cfg:
        return "config not read yet"
    return (f"max_batch={cfg['max_batch']} · max_delay_ms={cfg['max_delay_ms']:g} · "
            f"{cfg['policy']} · max_queue={cfg['max_queue']}")


def change_label(old: dict, new: dict) -> str:
    """What changed between two configs, e.g. ``max_batch 16→1`` ('' if nothing did)."""
    fmt = lambda v: f"{v:g}" if isinstance(v, float) else str(v)  # noqa: E731
    return ", ".join(f"{k} {fmt(old.get(k))}→{fmt(v)}" for k, v in new.items()
                     if old.get(k) != v)


SHORT = {"max_batch": "batch", "max_delay_ms": "delay", "max_queue": "queue"}


def mark_label(old: dict, new: dict) -> str:
    """A change as the plot names it, short enough to stand in a panel: ``batch→1 delay→9``
    (a policy by its name); '' if nothing changed."""
    fmt = lambda v: f"{v:g}" if isinstance(v, float) else str(v)  # noqa: E731
    return " ".join(fmt(v) if k == "policy" else f"{SHORT.get(k, k)}→{fmt(v)}"
                    for k, v in new.items() if old.get(k) != v)


def figure(samples: list[dict], marks: list[tuple[float, str]], cfg: dict, *,
           presenter: bool = False, title: str | None = None):
    """The dashboard's figure: ``samples`` (``/stats`` dicts), ``marks`` ``(t, label)`` on
    the service's clock, ``cfg`` (the live config) in the title."""
    from matplotlib.ticker import MaxNLocator
    with drawing(presenter) as st:
        fig = st.figure(6.4 if not presenter else 7.2)
        axes = fig.subplots(2, 2, sharex=True).ravel()
        axes_top = set_title(fig, title or describe(cfg), st)
        if len(samples) < MIN_SAMPLES:
            fig.text(0.5, 0.5, "waiting for the second sample…", ha="center", va="center")
            for ax in axes:
                ax.set_visible(False)
            return fig
        t = [s["t"] for s in samples]
        for ax, (key, label) in zip(axes, PANELS):
            if key == "latency":
                ax.plot(t, [_nan(s["p50_ms"]) for s in samples], color="C0", label="p50")
                ax.plot(t, [_nan(s["p99_ms"]) for s in samples], color="C1", label="p99")
                ax.legend(loc="upper left", ncols=1 if presenter else 2)
            elif key == "throughput_rps":
                ax.plot(t, [s[key] for s in samples], color="C2")
                ax.yaxis.label.set_color("C2")
                rej = ax.twinx()  # 429s on their own axis: a big burst must not flatten the rest
                rej.plot(t, [s["rejected_rps"] for s in samples], color="C3", ls="--")
                rej.set_ylabel("rejected (429/s)", color="C3")
                rej.tick_params(axis="y", colors="C3")
                rej.yaxis.set_major_locator(MaxNLocator(4, integer=True))
                rej.set_ylim(0, max(4.0, 1.15 * max(s["rejected_rps"] for s in samples)))
            else:
                ax.plot(t, [s[key] for s in samples], color="C0" if key == "mean_batch" else "C4")
            ax.set_ylabel(label)
            counts = key in ("queue_depth", "mean_batch")
            ax.yaxis.set_major_locator(MaxNLocator(5, integer=counts))
            top = ax.get_ylim()[1] * (1.3 if key in ("latency", "throughput_rps") else 1.05)
            ax.set_ylim(0, max(top, 4.0 if counts else 1.0))
            ax.grid(alpha=0.3)
            for tc, _ in marks:
                if t[0] <= tc <= t[-1]:
                    ax.axvline(tc, color="0.35", lw=0.7 * st.line_w, ls=":")
        gap, last = 0.06 * (t[-1] - t[0]), math.inf  # labels closer than this would overlap
        for tc, text in reversed(marks):  # the latest changes, named in the first panel
            # (read upwards from the bottom: a label too long for the panel loses its end)
            if t[0] <= tc <= t[-1] and last - tc > gap:
                axes[0].annotate(text, (tc, 0.0), xycoords=("data", "axes fraction"),
                                 xytext=(-4, 4), textcoords="offset points", rotation=90,
                                 ha="right", va="bottom", color="0.2", clip_on=True,
                                 bbox={"fc": "white", "ec": "none", "alpha": 0.8, "pad": 1})
                last = tc
        for ax in axes[2:]:
            ax.set_xlabel("service clock (s)")
        grow = st.text_px / 16.0  # margins for the labels grow with the text
        fig.subplots_adjust(left=0.09 * grow, right=1 - 0.09 * grow, top=axes_top,
                            bottom=0.11 * grow, hspace=0.16 * grow, wspace=0.3 * grow)
        return fig


def readout_html(cfg: dict, sample: dict | None, *, presenter: bool = False) -> str:
    """Two rows of tiles: the live config, then the last sample's numbers."""
    fmt = lambda v, unit="": "–" if v is None or v != v else f"{v:.0f}{unit}"  # noqa: E731
    config_row = [("max_batch", str(cfg.get("max_batch", "–"))),
                  ("max_delay_ms", f"{cfg['max_delay_ms']:g} ms" if cfg else "–"),
                  ("policy", str(cfg.get("policy", "–"))),
                  ("max_queue", str(cfg.get("max_queue", "–")))]
    s = sample or {}
    numbers = [("queue", str(s.get("queue_depth", "–"))),
               ("mean batch", f"{s['mean_batch']:.1f}" if s else "–"),
               ("p50", fmt(s.get("p50_ms"), " ms")), ("p99", fmt(s.get("p99_ms"), " ms")),
               ("completed/s", fmt(s.get("throughput_rps"))),
               ("rejected/s", fmt(s.get("rejected_rps")))]
    return tiles_html([config_row, numbers], presenter=presenter)


def _nan(v) -> float:
    return math.nan if v is None else v


def line_html(text: str, css_class: str, *, presenter: bool = False) -> str:
    """A status or load line, a little smaller than the readout's numbers."""
    px = round(0.8 * style(presenter).readout_px)
    return f"<div class='{css_class}' style='font-size:{px}px'>{text}</div>"


def controls(cfg: dict, *, presenter: bool, load: bool) -> tuple[dict, object]:
    """The dashboard's widgets, named (``max_batch``, ``max_delay_ms``, ``policy``,
    ``presenter``, ``readout``, ``image``, ``status``; with ``load`` also ``pause`` and
    ``load``), and the box that lays them out."""
    import ipywidgets as W
    sty = {"description_width": "initial"}
    w = {"max_batch": W.IntSlider(value=cfg["max_batch"], min=1, max=max(64, cfg["max_batch"]),
                                  step=1, description="max_batch", style=sty,
                                  continuous_update=False),
         "max_delay_ms": W.FloatSlider(value=cfg["max_delay_ms"], min=0.0,
                                       max=max(50.0, cfg["max_delay_ms"]), step=0.5,
                                       description="max_delay_ms", style=sty,
                                       continuous_update=False),
         "policy": W.Dropdown(options=sorted(POLICIES), value=cfg["policy"],
                              description="policy", style=sty),
         "presenter": W.ToggleButton(value=presenter, description="presenter",
                                     tooltip="bigger text and lines for a projector"),
         "image": W.Image(format="png", layout=W.Layout(width="100%")),
         "readout": W.HTML(), "status": W.HTML()}
    rows = [W.HBox([w["max_batch"], w["max_delay_ms"], w["policy"], w["presenter"]],
                   layout=W.Layout(flex_flow="row wrap"))]
    if load:
        w["pause"] = W.ToggleButton(description="pause load", icon="pause")
        w["load"] = W.HTML()
        rows.append(W.HBox([w["pause"], w["load"]]))
    return w, W.VBox(rows + [w["readout"], w["image"], w["status"]])
