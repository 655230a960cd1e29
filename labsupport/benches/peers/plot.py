"""The one PNG of ``labsupport bench peers`` (saturation and SLO capacity as fractions of
ideal, light-load p50, per system, with the CPU the rest of the box used on each bar), its
table rows and the lines that say which goal each run met (notebook 07 prints them)."""
from __future__ import annotations

from pathlib import Path

from ...projector import drawing, png, title

LABELS = {"lab_inprocess": "lab\nin-process", "lab_http": "lab\nHTTP",
          "pytriton": "PyTriton\nHTTP", "ray_serve": "Ray Serve\nHTTP"}
COLORS = {"lab_inprocess": "C0", "lab_http": "C0", "pytriton": "C1", "ray_serve": "C3"}


def _measured(result: dict) -> list[str]:
    return [n for n, r in result["peers"].items() if "saturation" in r]


def figure(result: dict):
    """A matplotlib ``Figure`` (no pyplot, projector sizes) of a ``bench peers`` result."""
    cfg, names = result["config"], _measured(result)
    with drawing() as st:
        fig = st.figure(6.2)
        axes = fig.subplots(1, 3)
        panels = (("saturation", lambda r: r["saturation"]["fraction_of_ideal"], "saturation"),
                  ("slo", lambda r: r["slo"]["fraction_of_ideal"], "slo"),
                  ("light", lambda r: r["light"]["latency_ms"]["p50"], "light"))
        for ax, (load, value, cpu_of) in zip(axes, panels):
            vals = [value(result["peers"][n]) for n in names]
            bars = ax.bar(range(len(names)), [v or 0 for v in vals],
                          color=[COLORS.get(n, "C2") for n in names])
            for b, v, n in zip(bars, vals, names):
                r = result["peers"][n]
                cpu = ((r[cpu_of].get("at_rate") or {}).get("cpu") if load == "slo"
                       else r[cpu_of]["cpu"])
                note = f"\nCPU {cpu['other_cores']:.2f}" if cpu else ""
                fail = f"\n{r['failed']} FAILED" if r.get("failed") else ""
                ax.annotate(("–" if v is None else f"{v:.2f}") + note + fail,
                            (b.get_x() + b.get_width() / 2, b.get_height()), ha="center",
                            va="bottom", color="C3" if fail else "black")
            ax.set_xticks(list(range(len(names))), [LABELS.get(n, n) for n in names],
                          rotation=90)
            ax.grid(axis="y", alpha=0.3)
        sat, slo, light = axes
        for ax in (sat, slo):
            ax.axhline(1.0, color="grey", ls="--")
            ax.set_ylim(0, 1.5)
        sat.set_ylabel("completed / ideal")
        sat.set_title(f"saturation ({cfg['sat_concurrency']} in flight)")
        slo.set_title(f"p99 <= {cfg['slo_p99_ms']:g} ms")
        s1 = cfg["service_1_ms"]
        light.axhline(s1, color="grey", ls="--", label=f"service(1) {s1:g} ms")
        light.axhline(s1 + 1.5, color="C3", ls=":", label="+ 1.5 ms")
        light.legend(loc="upper left")
        light.set_ylabel("p50 (ms)")
        light.set_ylim(0, max([s1 + 1.5] + [result["peers"][n]["light"]["latency_ms"]["p50"]
                                            or 0 for n in names]) * 1.7)
        light.set_title(f"light: {cfg['light_rps']:g} req/s")
        top = title(fig, f"toy model {cfg['fixed_ms']:g} ms + {cfg['per_item_ms']:g} ms/item, "
                    f"max_batch {cfg['max_batch']}, ideal {cfg['ideal_rps']:.0f} req/s; "
                    f"{result['cpus']} CPUs, load avg {result['loadavg'][0]:.2f}; CPU: other "
                    "cores busy meanwhile", st)
        fig.subplots_adjust(left=0.08, right=0.99, top=top - 0.07, bottom=0.3, wspace=0.3)
        return fig


def save(result: dict, path: Path) -> Path:
    path.write_bytes(png(figure(result)))
    return path


def rows(result: dict) -> list[dict]:
    """One table row per system: the figures and, beside each, the rest of the box's CPU."""
    s1 = result["config"]["service_1_ms"]
    out = []
    for name, r in result["peers"].items():
        if "saturation" not in r:
            out.append({"peer": name, "note": r.get("skipped") or r.get("error")})
            continue
        sat, slo, light = r["saturation"], r["slo"], r["light"]
        out.append({"peer": name, "failed requests": r["failed"],
                    "saturation req/s": sat["throughput_rps"],
                    "in flight": sat.get("inflight"),
                    "saturation / ideal": sat["fraction_of_ideal"],
                    "other CPU at saturation (cores)": sat["cpu"]["other_cores"],
                    "p99 <= SLO req/s": slo["rate_rps"],
                    "light p50 ms": light["latency_ms"]["p50"],
                    "p50 - service(1) ms": round(light["latency_ms"]["p50"] - s1, 2),
                    "light p99 ms": light["latency_ms"]["p99"]})
    return out


def verdict_lines(result: dict) -> list[str]:
    """One line per goal of a ``bench peers`` result: its figure, the goal, met or not."""
    said = {True: "met", False: "NOT met", None: "not judged"}
    lines = []
    for goal, m in result["met"].items():
        if "ratio" in m:
            fig = f"{m['ratio']}x" if m["ratio"] is not None else f"no ratio ({m['why']})"
            lines.append(f"{goal}: {fig}" + (f" (goal {m['goal']}: {said[m.get('met')]})"
                                             if m.get("goal") else ""))
        elif "failed" in m:
            lines.append(f"{goal}: failed requests {m['failed']}: {said[m['met']]}")
        elif "fraction" in m:
            lines.append(f"{goal}: {m['fraction']} of ideal (goal {m['goal']}): "
                         f"{said[m['met']]}")
        elif "p50" in m:
            lines.append(f"{goal}: {m['p50']} ms against {m['limit']} ms: {said[m['met']]}")
    return lines
