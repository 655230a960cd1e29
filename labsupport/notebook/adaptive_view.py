"""The adaptive batcher tracking a change of load (notebook 04, after ex04_4).

The offered load steps from light to heavy (Poisson within each step, simulated on the
virtual clock). The same requests go through the ``adaptive`` policy (running a dispatch
rule: the student's ``dispatch_at`` or the lab's) and through one fixed setting. Three
panels over time: the size of each batch, how long its oldest request waited before it
started, and p99 latency per step against the SLO. A slider sets the SLO.
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np

from ..batching.adaptive import Adaptive, dispatch_at
from ..costs import ServiceModel
from ..sim.records import SimResult
from ..sim.simulator import simulate
from ..traffic import Request, poisson
from .plots import show_png

LOAD_STEPS = (0.05, 0.3, 0.6, 0.9)  # shares of capacity: idle, light, busy, near saturation
FIXED = ("early", {"max_batch": 32, "max_delay_ms": 10.0})  # a typical hand-tuned setting


def step_traffic(rates_per_s, step_ms: float, *, seed: int = 0, lengths=None) -> list[Request]:
    """Poisson arrivals at ``rates_per_s[k]`` during step ``k`` (each ``step_ms`` long)."""
    out: list[Request] = []
    for k, rate in enumerate(rates_per_s):
        n = max(1, int(rate * step_ms / 1000.0 * 1.5))  # enough to fill the step
        for r in poisson(rate, n, seed=seed + k, lengths=lengths):
            if r.arrival < step_ms:
                out.append(Request(len(out), k * step_ms + r.arrival, r.length))
    return out


def per_batch(res: SimResult) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each batch's start (ms), size and wait of its oldest request (start − arrival, ms)."""
    oldest = np.full(len(res.batch_start), np.inf)
    np.minimum.at(oldest, res.batch_of, res.arrival)
    return res.batch_start, res.batch_size, res.batch_start - oldest


def step_p99(res: SimResult, step_ms: float, steps: int) -> np.ndarray:
    """p99 latency (ms) of the requests that arrived in each step (nan where none)."""
    k = np.minimum((res.arrival // step_ms).astype(int), steps - 1)
    return np.array([np.percentile(res.latency[k == s], 99) if np.any(k == s) else np.nan
                     for s in range(steps)])


class AdaptiveView:
    """SLO slider → simulate adaptive and ``fixed`` on the load steps → three panels.
    ``rule``: the dispatch rule (``dispatch_at``'s signature). ``service``: the cost model
    (ms). Rates are ``load_steps`` × the capacity at batch 32 (rows padded to the 90th
    percentile of ``lengths``). ``last_update_ms``: the last redraw's wall time."""

    def __init__(self, rule: Callable[..., float] | None = None,
                 service: ServiceModel | None = None, *, slo_ms: float = 50.0,
                 lengths=None, load_steps=LOAD_STEPS, step_ms: float = 1000.0,
                 fixed=FIXED, seed: int = 0):
        import ipywidgets as w

        self.rule = rule or dispatch_at
        self.service = service or ServiceModel()
        self.fixed = fixed
        self.step_ms, self.steps = float(step_ms), len(load_steps)
        pool = None if lengths is None else np.asarray(lengths, int)
        longest = 1 if pool is None else int(np.percentile(pool, 90))
        cap = self.service.capacity(32, 32 * longest)
        self.rates = [round(s * cap, 1) for s in load_steps]
        self.requests = step_traffic(self.rates, self.step_ms, seed=seed, lengths=pool)
        self.slo_ms = w.FloatSlider(value=slo_ms, min=10.0, max=max(500.0, 4 * slo_ms), step=5.0,
                                    description="slo_p99_ms",
                                    style={"description_width": "initial"},
                                    continuous_update=False)
        self.readout = w.HTML()
        self.out = w.Output()
        self.widget = w.VBox([self.slo_ms, self.readout, self.out])
        self.last_update_ms = float("nan")
        self.last_png = b""
        self.last_p99: dict[str, np.ndarray] = {}
        self.slo_ms.observe(self.update, names="value")
        self.update()

    def results(self) -> dict[str, SimResult]:
        """Both runs at the slider's SLO (seeded: the same SLO gives the same runs)."""
        slo = float(self.slo_ms.value)
        policy = Adaptive(service=self.service, rule=self.rule, max_batch=32, slo_p99_ms=slo)
        name, knobs = self.fixed
        label = f"{name} ({', '.join(f'{k}={v:g}' for k, v in knobs.items())})"
        return {"adaptive": simulate(self.requests, policy, self.service),
                label: simulate(self.requests, name, self.service, **knobs)}

    def figure(self, runs: dict[str, SimResult]):
        """Batch size, wait and per-step p99 over time (a pyplot-free Figure)."""
        from matplotlib.figure import Figure
        fig = Figure(figsize=(12, 3.3), dpi=80)
        axes = fig.subplots(1, 3)
        fig.subplots_adjust(left=0.06, right=0.99, bottom=0.17, top=0.88, wspace=0.28)
        slo = float(self.slo_ms.value)
        for (name, res), color in zip(runs.items(), ("tab:purple", "tab:orange")):
            t, size, wait = per_batch(res)
            axes[0].plot(t / 1000, size, ".", ms=3, color=color, label=name, alpha=0.6)
            axes[1].plot(t / 1000, wait, ".", ms=3, color=color, label=name, alpha=0.6)
            mid = (np.arange(self.steps) + 0.5) * self.step_ms / 1000
            axes[2].plot(mid, self.last_p99[name], "o-", color=color, label=name)
        axes[2].axhline(slo, ls="--", color="k", lw=1, label=f"SLO {slo:g} ms")
        for ax, title, ylabel in zip(axes, ("batch size", "wait of the oldest", "p99 per step"),
                                     ("requests", "ms", "ms")):
            ax.set_title(title)
            ax.set_xlabel("time (s)")
            ax.set_ylabel(ylabel)
            for k in range(1, self.steps):
                ax.axvline(k * self.step_ms / 1000, color="0.85", lw=1)
        axes[2].set_yscale("log")
        axes[0].legend(fontsize="small", loc="upper left")
        axes[2].legend(fontsize="small", loc="upper left")
        return fig

    def table_html(self, runs: dict[str, SimResult]) -> str:
        """Per step: offered rate, then p99 (ms) and mean batch size of each run."""
        head = "".join(f"<th>{n}: p99 ms</th><th>mean batch</th>" for n in runs)
        rows = []
        for s, rate in enumerate(self.rates):
            cells = []
            for name, res in runs.items():
                t, size, _ = per_batch(res)
                here = (t // self.step_ms).astype(int) == s
                mean = float(np.mean(size[here])) if here.any() else float("nan")
                cells.append(f"<td>{self.last_p99[name][s]:.1f}</td><td>{mean:.1f}</td>")
            rows.append(f"<tr><td>{rate:g}</td>{''.join(cells)}</tr>")
        return f"<table><tr><th>req/s</th>{head}</tr>{''.join(rows)}</table>"

    def update(self, change=None) -> None:
        """Re-simulate at the slider's SLO, refresh the table and redraw (see explorer)."""
        t0 = time.perf_counter()
        runs = self.results()
        self.last_p99 = {n: step_p99(r, self.step_ms, self.steps) for n, r in runs.items()}
        self.readout.value = self.table_html(runs)
        self.last_png = show_png(self.out, self.figure(runs), "<adaptive batcher plots>")
        self.last_update_ms = (time.perf_counter() - t0) * 1000.0

    def _ipython_display_(self):
        from IPython.display import display
        display(self.widget)
