"""The one PNG of ``labsupport bench peers``: saturation throughput as a fraction of ideal
and light-load p50 latency, per peer, with the CPU the rest of the box used on each bar."""
from __future__ import annotations

from pathlib import Path

LABELS = {"lab_inprocess": "lab MicroBatcher\n(in-process)", "lab_http": "lab service\n(HTTP)",
          "pytriton": "PyTriton 0.7\n(HTTP)", "ray_serve": "Ray Serve 2.60\n(HTTP)"}


def figure(result: dict):
    """A matplotlib ``Figure`` (no pyplot) of a ``bench peers`` result."""
    from matplotlib.figure import Figure
    cfg = result["config"]
    names = [n for n, r in result["peers"].items() if "saturation" in r]
    fig = Figure(figsize=(10, 4.2), dpi=80)
    ax1, ax2 = fig.subplots(1, 2)
    x = range(len(names))
    for ax, load, key in ((ax1, "saturation", "fraction_of_ideal"), (ax2, "light", "p50")):
        vals = [result["peers"][n][load][key] if key != "p50"
                else result["peers"][n][load]["latency_ms"]["p50"] for n in names]
        bars = ax.bar(x, [v or 0 for v in vals], color=["C0", "C0", "C1", "C3"][:len(names)])
        for b, v, n in zip(bars, vals, names):
            other = result["peers"][n][load]["cpu"]["other_cores"]
            ax.annotate(f"{v:.2f}\nother CPU {other:.2f}" if v is not None else "–",
                        (b.get_x() + b.get_width() / 2, b.get_height()), ha="center",
                        va="bottom", fontsize=7)
        ax.set_xticks(list(x), [LABELS.get(n, n) for n in names], fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    ax1.set_ylabel("completed / ideal at saturation")
    ax1.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax1.set_ylim(0, 1.25)
    ax1.set_title(f"saturation: {cfg['sat_offered_rps']:.0f} req/s offered, "
                  f"ideal {cfg['ideal_rps']:.0f}", fontsize=9)
    s1, w = cfg["service_1_ms"], cfg["max_delay_ms"]
    ax2.axhline(s1, color="grey", lw=0.8, ls="--", label=f"service(1) = {s1:g} ms")
    ax2.axhline(s1 + w, color="C3", lw=0.8, ls=":", label=f"service(1) + window {w:g} ms")
    ax2.legend(fontsize=7, loc="upper left")
    ax2.set_ylabel("p50 latency (ms, from scheduled send)")
    ax2.set_ylim(0, max([s1 + w] + [result["peers"][n]["light"]["latency_ms"]["p50"] or 0
                                    for n in names]) * 1.35)
    ax2.set_title(f"light load: {cfg['light_rps']:g} req/s Poisson", fontsize=9)
    fig.suptitle(f"toy model {cfg['fixed_ms']:g} ms + {cfg['per_item_ms']:g} ms/item, "
                 f"max_batch {cfg['max_batch']}, window {w:g} ms; "
                 f"{result['cpus']} CPUs, load avg {result['loadavg'][0]:.2f}", fontsize=9)
    fig.subplots_adjust(left=0.07, right=0.99, top=0.86, bottom=0.16, wspace=0.22)
    return fig


def save(result: dict, path: Path) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    FigureCanvasAgg(figure(result)).print_png(str(path))
    return path


def rows(result: dict) -> list[dict]:
    """One table row per peer: the figures and, beside each, the rest of the box's CPU."""
    s1 = result["config"]["service_1_ms"]
    out = []
    for name, r in result["peers"].items():
        if "saturation" not in r:
            out.append({"peer": name, "note": r.get("skipped") or r.get("error")})
            continue
        sat, light = r["saturation"], r["light"]
        out.append({"peer": name, "saturation / ideal": sat["fraction_of_ideal"],
                    "other CPU meanwhile (cores)": sat["cpu"]["other_cores"],
                    "light p50 ms": light["latency_ms"]["p50"],
                    "p50 - service(1) ms": round(light["latency_ms"]["p50"] - s1, 2),
                    "light p99 ms": light["latency_ms"]["p99"],
                    "other CPU at light load (cores)": light["cpu"]["other_cores"]})
    return out
