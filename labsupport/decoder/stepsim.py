"""The step simulator: the real ``Engine`` and ``Scheduler`` with the model replaced by a
step-cost model, so a sweep or a widget redraw takes milliseconds.

Cost of one step (ms) = ``fixed_ms + per_seq_ms × rows + per_token_ms × tokens fed +
per_kv_ms × KV tokens read`` (``StepPlan.kv_read``), fitted by least squares
(``StepCost.fit``) to steps measured on the real runner, or shaped like a GPU's step from
the roofline (``StepCost.from_roofline``). Tokens produced are dummies (0), and ``SIM_EOS``
where a request's answer ends (``simulate_steps(..., max_new_tokens=cap)``); timing,
admission, preemption and places are exact.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..costs import linear_fit
from ..traffic import Request
from ..validate import check_float, check_int
from .engine import Engine, EngineResult
from .kvmath import LLAMA3_8B, kv_bytes_per_token
from .roofline import GPUS, pass_ms
from .scheduler import SchedulerConfig, StepPlan

SIM_EOS = 1  # the simulator's stop token; every other token it "generates" is 0


@dataclass(frozen=True)
class StepCost:
    """Milliseconds per decode step as a linear model of its shape."""
    fixed_ms: float = 0.5     # defaults: fitted to the tiny GPT-2 on the lab's 2-core CPU,
    per_seq_ms: float = 0.02   # one torch thread (bench decode, 2026-12-02); refit with
    per_token_ms: float = 0.023  # StepCost.fit(result.steps) on your machine
    per_kv_ms: float = 0.0002

    def __post_init__(self):
        for name in ("fixed_ms", "per_seq_ms", "per_token_ms", "per_kv_ms"):
            check_float(name, getattr(self, name), 0.0)

    def cost(self, seqs: int, tokens: int, kv_read: int = 0) -> float:
        return (self.fixed_ms + self.per_seq_ms * seqs + self.per_token_ms * tokens
                + self.per_kv_ms * kv_read)

    @classmethod
    def fit(cls, steps) -> "StepCost":
        """Least squares on measured ``StepRecord``s, coefficients clipped at 0. Steps far
        slower than the fit (the process was descheduled: a shared machine) are dropped and
        the fit repeated, so a few stalls do not skew it."""
        if len(steps) < 4:
            raise ValueError("StepCost.fit needs at least 4 measured steps")
        cols = [[getattr(st, k) for st in steps] for k in ("seqs", "tokens", "kv_read")]
        return cls(*linear_fit(cols, [st.ms for st in steps], min_rows=4))

    @classmethod
    def from_roofline(cls, config: dict = LLAMA3_8B, gpu: str = "H100 SXM") -> "StepCost":
        """A GPU-shaped step (``roofline``): reading the weights once is the fixed cost,
        ``2 × params`` FLOPs the cost per token fed, and each KV token read costs its
        bytes over the bandwidth. Memory and compute time are *added* (no overlap), so
        while decode is memory-bound this is a little above the roofline's ``max``."""
        weights_ms, token_ms = pass_ms(config["params"], gpu, config.get("dtype_bytes", 2))
        return cls(fixed_ms=weights_ms, per_seq_ms=0.0, per_token_ms=token_ms,
                   per_kv_ms=1e3 * kv_bytes_per_token(config) / GPUS[gpu][0])


DEFAULT_COST = StepCost()


class CostRunner:
    """Stands in for ``ModelRunner``: no tensors; ``cost_ms`` says how long a step takes.
    ``ends``: answer length per sequence id: the runner "generates" ``SIM_EOS`` as that
    token (the model decides where an answer ends; the scheduler only knows the cap)."""

    def __init__(self, cost: StepCost = DEFAULT_COST, ends: dict[int, int] | None = None):
        self.cost = cost
        self.ends = dict(ends or {})

    def init_cache(self, kv) -> None:
        pass

    def run(self, plan: StepPlan, kv) -> list[int | None]:
        end = self.ends.get
        return [None if not s else SIM_EOS if len(q.output) + 1 >= end(q.id, float("inf"))
                else 0 for q, s in zip(plan.seqs, plan.sample)]

    def cost_ms(self, plan: StepPlan) -> float:
        return self.cost.cost(len(plan.seqs), plan.num_tokens, plan.kv_read())


def simulate_steps(requests: list[Request], cfg: SchedulerConfig | None = None,
                   cost: StepCost = DEFAULT_COST, *, max_new_tokens: int | None = None,
                   **knobs) -> EngineResult:
    """Run ``requests`` (``length`` prompt tokens, ``output_len`` to generate, ``arrival``
    ms) through the engine on the cost model's clock. The prompt is the request's
    ``payload`` when it holds ``length`` token ids, else a filler unique to the request (so
    the prefix cache finds only prefixes that are really shared).

    ``max_new_tokens`` (a fixed API limit, as clients send): every request asks for that
    cap and its answer ends at ``output_len`` with ``SIM_EOS`` (cut at the cap if longer).
    None: the cap is the exact ``output_len`` (an oracle: the scheduler knows each end)."""
    if max_new_tokens is None:
        eng = Engine(CostRunner(cost), cfg, clock="model", **knobs)
        return eng.run([(_prompt(r), r.output_len, r.arrival, r.id) for r in requests])
    cap = check_int("max_new_tokens", max_new_tokens, 1)
    eng = Engine(CostRunner(cost, {r.id: r.output_len for r in requests}), cfg, clock="model",
                 **knobs)
    return eng.run([(_prompt(r), cap, r.arrival, r.id, SIM_EOS) for r in requests])


def _prompt(r: Request) -> list[int]:
    p = getattr(r, "payload", None)
    if p is not None and len(p) == r.length:
        return list(p)
    return [-1 - int(r.id)] * r.length

