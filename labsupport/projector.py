"""Figures and readouts that read from the back of a classroom: one place decides how big
text is drawn for the notebook's displayed width (and for the "presenter" size).

JupyterLab 4.6 at 1280×800 (a projector's resolution), file browser open, gives a notebook
output area about ``OUTPUT_PX`` CSS px wide; it shrinks a wider PNG to that width
(``max-width: 100%``). A figure ``width_in`` inches wide, drawn at ``dpi``, therefore shows
a font of ``pt`` points at ``pt × OUTPUT_PX / (72 × width_in)`` CSS px. ``Style`` picks the
point sizes that give ``text_px`` on screen, whatever the figure's inch width.

    with drawing() as st:              # matplotlib rc for this style
        fig = st.figure(height_in=4)   # pyplot-free Figure, width_in × height_in
        ...
    display(image(fig))                # PNG, natural width st.width_in × st.dpi px

``png`` writes into each PNG (text chunk ``INFO_KEY``, JSON) the smallest font it drew per
kind of text (axis label, tick label, legend, title, annotation) in PNG pixels and the
figure's title, so a browser test can turn the sizes into on-screen pixels with the image's
displayed width and read what the image says (``png_info``).
"""
from __future__ import annotations

import io
import json
import struct
import threading
from contextlib import contextmanager
from dataclasses import dataclass

# JupyterLab 4.6's output area at 1280×800 with the file browser open is 848 px wide, a
# widget's output inside it a few px less: sizes are worked out for 820 px, a little margin
OUTPUT_PX = 820
INFO_KEY = "labsupport"
_RC_LOCK = threading.RLock()  # rcParams are global: one drawing() at a time (the dashboard
# draws in its poller thread while a cell may draw too)


@dataclass(frozen=True)
class Style:
    """How big text and lines are drawn. ``text_px``: the smallest text (ticks, legends) on
    screen at ``OUTPUT_PX``, CSS px; labels and titles are drawn larger by ``label_scale``
    and ``title_scale``."""
    text_px: float = 16.0      # 12 pt on screen: readable from the back of a room
    width_in: float = 10.0     # figures are drawn this wide (their shape sets their height)
    dpi: float = 110.0         # 1100 px: shrunk to fit at 1280 px, still sharp when wider
    line_w: float = 2.0        # a 1 px line vanishes on a projector
    label_scale: float = 1.1
    title_scale: float = 1.15
    readout_px: float = 18.0   # the HTML readout's numbers, CSS px
    widget_px: float = 15.0    # the dashboard's sliders, menus and buttons, CSS px

    def __post_init__(self):
        for name in ("text_px", "width_in", "dpi", "line_w", "readout_px", "widget_px"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")

    @property
    def font_pt(self) -> float:
        """Points that show as ``text_px`` CSS px on a figure ``width_in`` wide."""
        return self.text_px * 72.0 * self.width_in / OUTPUT_PX

    def rc(self) -> dict:
        """matplotlib rcParams for this style."""
        pt = self.font_pt
        return {"font.size": pt, "axes.labelsize": pt * self.label_scale,
                "axes.titlesize": pt * self.title_scale, "figure.titlesize": pt * self.title_scale,
                "xtick.labelsize": pt, "ytick.labelsize": pt, "legend.fontsize": pt,
                "legend.title_fontsize": pt, "lines.linewidth": self.line_w,
                "lines.markersize": 2.5 * self.line_w, "axes.linewidth": 0.6 * self.line_w,
                "grid.linewidth": 0.5 * self.line_w, "patch.linewidth": 0.5 * self.line_w,
                "figure.dpi": self.dpi, "savefig.dpi": self.dpi}

    def figure(self, height_in: float):
        """A pyplot-free ``Figure`` ``width_in`` × ``height_in`` (thread-safe; shows once)."""
        from matplotlib.figure import Figure
        return Figure(figsize=(self.width_in, height_in), dpi=self.dpi)


NORMAL = Style()
PRESENTER = Style(text_px=22.0, line_w=3.0, readout_px=24.0, widget_px=21.0)  # the presenter switch


def style(presenter: bool = False) -> Style:
    return PRESENTER if presenter else NORMAL


@contextmanager
def drawing(presenter: bool = False):
    """matplotlib's rc set to the style while the block draws; yields the ``Style``. One
    block at a time across threads, so each restores the rc it found."""
    import matplotlib
    st = style(presenter)
    with _RC_LOCK, matplotlib.rc_context(st.rc()):
        yield st


# ---- PNG with the sizes it drew ------------------------------------------------------------
def _kinds(fig) -> dict[str, list]:
    """The figure's visible texts by kind (call after a draw: tick labels exist then)."""
    out: dict[str, list] = {"axis_label": [], "tick_label": [], "legend": [], "title": [],
                            "annotation": []}
    for ax in fig.axes:
        out["axis_label"] += [ax.xaxis.label, ax.yaxis.label]
        out["tick_label"] += ax.get_xticklabels() + ax.get_yticklabels()
        if ax.get_legend() is not None:
            out["legend"] += ax.get_legend().get_texts()
        out["title"] += [ax.title, ax._left_title, ax._right_title]
        out["annotation"] += ax.texts
    if getattr(fig, "_suptitle", None) is not None:
        out["title"].append(fig._suptitle)
    out["annotation"] += fig.texts
    return {k: [t for t in v if t.get_visible() and t.get_text().strip()] for k, v in out.items()}


def text_px(fig) -> dict[str, float]:
    """The smallest font drawn per kind of text, in the figure's pixels (after a draw)."""
    return {k: round(min(t.get_fontsize() for t in v) * fig.dpi / 72.0, 2)
            for k, v in _kinds(fig).items() if v}


def png(fig, compress_level: int = 1) -> bytes:
    """``fig`` as PNG (its own dpi, no tight crop: the width stays ``width_in × dpi``), with
    ``{"text_px": text_px(fig), "title": its suptitle}`` as JSON in the text chunk
    ``INFO_KEY``. One draw; light compression (a live plot is redrawn every second or two,
    on loopback)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.image import imsave
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    sup = getattr(fig, "_suptitle", None)
    title = sup.get_text().replace("\n", " ") if sup is not None else ""
    buf = io.BytesIO()
    imsave(buf, canvas.buffer_rgba(), format="png", origin="upper", dpi=fig.dpi,
           metadata={INFO_KEY: json.dumps({"text_px": text_px(fig), "title": title})},
           pil_kwargs={"compress_level": compress_level})
    return buf.getvalue()


def image(fig):
    """An IPython ``Image`` of ``fig`` for ``display`` (JupyterLab shrinks it to fit)."""
    from IPython.display import Image
    return Image(data=png(fig), format="png")


def png_info(data: bytes) -> dict:
    """What ``png`` stored in a PNG ({} if nothing): ``text_px`` (PNG pixels), ``title``."""
    data = bytes(data)
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos = 8
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            if key.decode("latin-1") == INFO_KEY:
                return json.loads(value.decode("latin-1"))
        if kind == b"IEND":
            break
        pos += 12 + n
    return {}


def wrap(text: str, pt: float, width_in: float) -> str:
    """``text`` broken into lines that fit ``width_in`` at ``pt`` points (≈0.55 em a
    character): a long title must not run off the figure."""
    import textwrap
    return "\n".join(textwrap.wrap(text, max(20, int(width_in * 72 / (0.62 * pt)))))


def title(fig, text: str, st: Style) -> float:
    """``fig``'s suptitle, wrapped to its width; returns the ``top`` (figure fraction) that
    leaves the axes below it."""
    pt = st.font_pt * st.title_scale
    lines = wrap(text, pt, st.width_in)
    fig.suptitle(lines)
    return 1.0 - (1.4 * pt * (lines.count("\n") + 1) + 14) / (72.0 * fig.get_figheight())


# ---- HTML readouts -----------------------------------------------------------------------
def tiles_html(rows: list[list[tuple[str, str]]], *, presenter: bool = False,
               css_class: str = "lab-readout") -> str:
    """Rows of (label, value) tiles, each row one grid line: a small label over a big value,
    never wrapped (values are short; a row holds at most 7 tiles)."""
    st = style(presenter)
    big, small = st.readout_px, round(0.72 * st.readout_px, 1)
    lines = []
    for row in rows:
        cells = "".join(
            f"<div style='min-width:0;overflow:hidden'><div class='lab-tile-label' "
            f"style='font-size:{small}px;color:#555;white-space:nowrap'>{label}</div>"
            f"<div class='lab-tile-value' style='font-size:{big}px;font-weight:600;"
            f"white-space:nowrap;line-height:1.25'>{value}</div></div>" for label, value in row)
        lines.append(f"<div style='display:grid;grid-template-columns:repeat({len(row)},"
                     f"minmax(0,1fr));gap:0 12px;margin:2px 0'>{cells}</div>")
    return f"<div class='{css_class}' style='width:100%'>{''.join(lines)}</div>"
