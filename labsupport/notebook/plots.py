"""Plot helpers for simulator results (the explorer widget draws with them).

The helpers draw on a matplotlib ``Axes`` you pass in, so other notebooks reuse them:

    fig, ax = plt.subplots()
    plot_latency_timeline(ax, res)
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..projector import png, tiles_html
from ..sim.records import SimResult

COLORS = {"naive": "tab:gray", "window": "tab:red", "early": "tab:orange",
          "work_conserving": "tab:green"}


# ---- plot helpers (Axes in, Axes out) -------------------------------------------------

def plot_latency_timeline(ax, res: SimResult, *, label: str | None = None, color=None):
    """Latency of each request against its arrival time (s), with the p50/p99 levels."""
    lat = res.latency
    ax.plot(res.arrival / 1000.0, lat, ".", ms=2, alpha=0.5, color=color or "tab:blue",
            label=label)
    for q, ls in ((50, "-"), (99, "--")):
        ax.axhline(np.percentile(lat, q), ls=ls, lw=1, color="k", label=f"p{q}")
    ax.set_xlabel("arrival time (s)")
    ax.set_ylabel("latency (ms)")
    ax.legend(loc="upper left")
    return ax


def plot_throughput(ax, res: SimResult, *, bin_ms: float = 250.0):
    """Offered load (arrivals) and throughput (completions) per second, in time bins."""
    end = float(np.nanmax(res.finish))
    edges = np.arange(0.0, end + bin_ms, bin_ms)
    scale = 1000.0 / bin_ms
    arr, _ = np.histogram(res.arrival, edges)
    done, _ = np.histogram(res.finish, edges)
    mid = (edges[:-1] + edges[1:]) / 2000.0
    ax.plot(mid, arr * scale, color="tab:gray", lw=1, label="arrivals/s")
    ax.plot(mid, done * scale, color="tab:green", lw=1.5, label="completions/s")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("requests / s")
    ax.legend(loc="upper left")
    return ax


def plot_batch_sizes(ax, res: SimResult, max_batch: int | None = None):
    """Histogram of batch sizes."""
    top = int(max_batch or res.batch_size.max())
    ax.hist(res.batch_size, bins=np.arange(0.5, top + 1.5), color="tab:purple")
    ax.set_xlabel("batch size")
    ax.set_ylabel("batches")
    return ax


def plot_sweep(ax, x, curves: Mapping[str, np.ndarray], *, xlabel: str, ylabel: str,
               knee: float | None = None, logy: bool = False):
    """One line per named curve over ``x``; an optional vertical line at ``knee``."""
    for name, y in curves.items():
        ax.plot(x, y, "o-", ms=3, label=name, color=COLORS.get(name))
    if knee is not None:
        ax.axvline(knee, ls=":", color="k", label=f"knee {knee:g}")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend()
    return ax


def readout_html(s: Mapping[str, float], *, presenter: bool = False) -> str:
    """``metrics.summarize`` output as one row of tiles (read by browser tests:
    ``.lab-readout``); never wraps at 1280 px."""
    return tiles_html([[("p50", f"{s['p50_ms']:.1f} ms"), ("p99", f"{s['p99_ms']:.1f} ms"),
                        ("throughput", f"{s['throughput_rps']:.0f} req/s"),
                        ("mean batch", f"{s['mean_batch']:.1f}"),
                        ("utilisation", f"{s['utilisation']:.2f}"),
                        ("window wait", f"{s['window_wait_ms']:.1f} ms")]], presenter=presenter)


def show_png(out, fig, label: str) -> bytes:
    """Draw ``fig`` once as PNG (``projector.png``: its text sizes stored in it) into the
    Output widget ``out`` and return the bytes.
    Replaces the widget's state in one step, never ``with out: display(…)``: that routes the
    image through the frontend's output capture, and headless executors (nbclient under
    nbgrader) then echo a comm message on the shell socket that can leave the cell's reply
    unread until Execute.timeout (a 60 s stall)."""
    import base64
    data = png(fig)
    out.outputs = ({"output_type": "display_data", "metadata": {},
                    "data": {"image/png": base64.b64encode(data).decode(), "text/plain": label}},)
    return data
