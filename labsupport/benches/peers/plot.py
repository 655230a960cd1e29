"""The one PNG of ``labsupport bench peers``: saturation throughput as a fraction of ideal
and light-load p50 latency, per peer, with the CPU the rest of the box used on each bar."""
from __future__ import annotations

from pathlib import Path

from ...projector import drawing, png, title

LABELS = {"lab_inprocess": "lab\nin-process", "lab_http": "lab\nHTTP",
          "pytriton": "PyTriton\nHTTP", "ray_serve": "Ray Serve\nHTTP"}


def figure(result: dict):
    """A matplotlib ``Figure`` (no pyplot, projector sizes) of a ``bench peers`` result."""
    cfg = result["config"]
    names = [n for n, r in result["peers"].items() if "saturation" in r]
    with drawing() as st:
        fig = st.figure(5.6)
        ax1, ax2 = fig.subplots(1, 2)
        x = range(len(names))
        for ax, load, key in ((ax1, "saturation", "fraction_of_ideal"), (ax2, "light", "p50")):
            vals = [result["peers"][n][load][key] if key != "p50"
                    else result["peers"][n][load]["latency_ms"]["p50"] for n in names]
            bars = ax.bar(x, [v or 0 for v in vals], color=["C0", "C0", "C1", "C3"][:len(names)])
            for b, v, n in zip(bars, vals, names):
                other = result["peers"][n][load]["cpu"]["other_cores"]
                ax.annotate(f"{v:.2f}\nCPU {other:.2f}" if v is not None else "–",
                            (b.get_x() + b.get_width() / 2, b.get_height()), ha="center",
                            va="bottom")
            ax.set_xticks(list(x), [LABELS.get(n, n) for n in names])
            ax.grid(axis="y", alpha=0.3)
        ax1.set_ylabel("completed / ideal")
        ax1.axhline(1.0, color="grey", ls="--")
        ax1.set_ylim(0, 1.45)
        ax1.set_title(f"saturation: {cfg['sat_offered_rps']:.0f} req/s offered")
        s1, w = cfg["service_1_ms"], cfg["max_delay_ms"]
        ax2.axhline(s1, color="grey", ls="--", label=f"service(1) {s1:g} ms")
        ax2.axhline(s1 + w, color="C3", ls=":", label=f"+ window {w:g} ms")
        ax2.legend(loc="upper left")
        ax2.set_ylabel("p50 (ms, from scheduled send)")
        ax2.set_ylim(0, max([s1 + w] + [result["peers"][n]["light"]["latency_ms"]["p50"] or 0
                                        for n in names]) * 1.6)
        ax2.set_title(f"light load: {cfg['light_rps']:g} req/s")
        top = title(fig, f"toy model {cfg['fixed_ms']:g} ms + {cfg['per_item_ms']:g} ms/item, "
                   f"max_batch {cfg['max_batch']}; {result['cpus']} CPUs, load avg "
                   f"{result['loadavg'][0]:.2f}; CPU: other cores busy meanwhile", st)
        fig.subplots_adjust(left=0.08, right=0.99, top=top - 0.08, bottom=0.16, wspace=0.28)
        return fig


def save(result: dict, path: Path) -> Path:
    path.write_bytes(png(figure(result)))
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
