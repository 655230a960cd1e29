"""The step simulator: the real ``Engine`` and ``Scheduler`` with the model replaced by a
step-cost model, so a sweep or a widget redraw takes milliseconds.

Cost of one step (ms) = ``fixed_ms + per_seq_ms × rows + per_token_ms × tokens fed +
per_kv_ms × KV tokens read`` (``StepPlan.kv_read``), fitted by least squares
(``StepCost.fit``) to steps measured on the real runner. Tokens produced are dummies (0);
timing, admission, preemption and places are exact.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..costs import linear_fit
from ..traffic import Request
from ..validate import check_float
from .engine import Engine, EngineResult
from .scheduler import SchedulerConfig, StepPlan


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


DEFAULT_COST = StepCost()


class CostRunner:
    """Stands in for ``ModelRunner``: no tensors; ``cost_ms`` says how long a step takes."""

    def __init__(self, cost: StepCost = DEFAULT_COST):
        self.cost = cost

    def init_cache(self, kv) -> None:
        pass

    def run(self, plan: StepPlan, kv) -> list[int | None]:
        return [0 if s else None for s in plan.sample]

    def cost_ms(self, plan: StepPlan) -> float:
        return self.cost.cost(len(plan.seqs), plan.num_tokens, plan.kv_read())


def simulate_steps(requests: list[Request], cfg: SchedulerConfig | None = None,
             cost: StepCost = DEFAULT_COST, **knobs) -> EngineResult:
    """Run ``requests`` (``length`` prompt tokens, ``output_len`` to generate, ``arrival``
    ms) through the engine on the cost model's clock. The prompt is the request's
    ``payload`` when it holds ``length`` token ids, else a filler unique to the request (so
    the prefix cache finds only prefixes that are really shared)."""
    eng = Engine(CostRunner(cost), cfg, clock="model", **knobs)
    return eng.run([(_prompt(r), r.output_len, r.arrival, r.id) for r in requests])


def _prompt(r: Request) -> list[int]:
    p = getattr(r, "payload", None)
    if p is not None and len(p) == r.length:
        return list(p)
    return [-1 - int(r.id)] * r.length

