"""Claims a notebook states only after checking them on this run, and cost fits that
survive a busy machine.

A notebook cell measures, then calls ``claim(...)``: when the measurement supports the
statement the cell shows it (as Markdown, with the numbers); when noise contradicts it, the
cell says so, why it can happen and how to rerun. Every claim is also emitted as
machine-readable output (``CLAIM_MIME``), so a test can run the notebook headless and check
that what the notebook concluded agrees with what it measured.

Every claim says what its evidence is (``basis``): ``"run"`` (measured on this run, or
simulated with costs fitted on it), ``"shipped"`` (simulated with the reference machine's
shipped costs: a fit fell back, ``basis_of``) or ``"roofline"`` (simulated with costs derived
from a GPU's published figures). The shown sentence starts with the words of its basis
(``HEADS``). ``claim`` returns nothing: a cell that ends with it shows the sentence only.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Callable

import numpy as np

from ..costs import ServiceModel

CLAIM_MIME = "application/vnd.labsupport.claim+json"
# MiniLM-L6 on a 2-core CPU (this lab's reference machine, 2026-12): min of 3 runs per shape.
SHIPPED_MINILM_CPU = ServiceModel(fixed_ms=7.0, per_item_ms=0.2, per_token_ms=0.16)
MAX_REL_RESIDUAL = 0.25  # a step fit missing the median step by > 25 % (median residual) is noise
# a batch-cost fit whose error is over 30 % of each batch's own time (RMS) is noise: a linear
# model of MiniLM on a CPU misses by 5-20 % (attention's L² term, GEMMs that run faster on
# more rows), more only when other programs changed the machine's speed while it measured
MAX_FIT_RMS = 0.30
NOT_THIS_MACHINE = ("From here on the simulator describes the lab's reference machine, not "
                    "this one: its milliseconds are not yours, only its comparisons carry over. "
                    "Rerun the measuring cell when the machine is quiet.")


# basis -> (words when the claim holds, words when it does not)
HEADS = {"run": ("On this run", "Not on this run"),
         "shipped": ("On the reference machine's costs", "Not on the reference machine's costs"),
         "roofline": ("On the GPU roofline's costs", "Not on the GPU roofline's costs")}


@dataclass
class Claim:
    """One stated conclusion and the numbers that decided it (ms, req/s, ratios)."""
    name: str
    holds: bool
    statement: str            # what the notebook says when it holds
    evidence: dict = field(default_factory=dict)
    otherwise: str = ""       # why it may not hold on this run, and how to rerun
    basis: str = "run"        # what the evidence is: a key of HEADS


def _show(markdown: str, record: dict) -> None:
    try:
        from IPython.display import display
    except ImportError:  # plain Python: print only
        print(markdown)
        return
    display({"text/markdown": markdown, "text/plain": markdown, CLAIM_MIME: record}, raw=True)


def claim(name: str, holds: bool, statement: str, evidence: dict | None = None,
          otherwise: str = "", basis: str = "run") -> None:
    """Show ``statement`` if ``holds`` on its ``basis`` (a key of ``HEADS``), else say it did
    not hold and why. Returns nothing, so a cell ending with it shows the sentence only."""
    if basis not in HEADS:
        raise ValueError(f"basis must be one of {sorted(HEADS)}, got {basis!r}")
    c = Claim(name, bool(holds), statement, dict(evidence or {}), otherwise, basis)
    nums = ", ".join(f"{k} = {_fmt(v)}" for k, v in c.evidence.items())
    yes, no = HEADS[basis]
    verb = "measured" if basis == "run" else "found"
    if c.holds:
        md = f"**{yes}:** {statement} ({nums})."
    else:
        md = (f"**{no}:** we expected that {statement[0].lower()}{statement[1:]}, "
              f"but {verb} {nums}. {otherwise or 'Another program may have used the CPU meanwhile: close it and rerun the cell.'}")
    _show(md, asdict(c))


def basis_of(model) -> str:
    """``"shipped"`` when ``model`` is one of the lab's shipped cost models (a checked fit
    fell back to it: ``checked_fit``, ``checked_step_fit``), else ``"run"``."""
    from ..decoder.stepsim import DEFAULT_COST
    return "shipped" if model in (SHIPPED_MINILM_CPU, DEFAULT_COST) else "run"


def _fmt(v) -> str:
    return f"{v:.3g}" if isinstance(v, (float, np.floating)) else str(v)


def min_of(fn: Callable[[], object], repeats: int = 5, warmup: int = 1,
           clock: Callable[[], float] = time.perf_counter) -> tuple[float, float]:
    """(min, median) ms of ``repeats`` calls of ``fn`` after ``warmup`` calls. Other programs
    only ever add time, so the minimum is the code's own cost; ``time.thread_time`` as
    ``clock`` counts this thread's CPU time only (right for single-threaded CPU work)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        times.append((clock() - t0) * 1000.0)
    return float(np.min(times)), float(np.median(times))


def checked_fit(rows, fallback: ServiceModel = SHIPPED_MINILM_CPU
                ) -> tuple[ServiceModel, str]:
    """Fit ``ServiceModel`` to ``(n, L, ms)`` rows; check it, else use ``fallback``.

    The fit weighs each row's error by the row's own time (``relative``): the simulator must
    get a 10 ms batch as right as a 2 s one, since light loads run small batches. Checks:
    RMS of those relative errors ≤ ``MAX_FIT_RMS``; measured time grows with batch size at
    every length and with length at every batch size (monotonic). Returns the model and a
    one-line note saying which one is used and why."""
    n, L, ms = (np.array(c, float) for c in zip(*rows))
    fit = ServiceModel.fit(n, n * L, ms, relative=True)
    pred = np.array([fit.cost(int(a), int(a * b)) for a, b in zip(n, L)])
    rel = float(np.sqrt(np.mean(((pred - ms) / ms) ** 2)))
    bad = []
    for key, other in ((n, L), (L, n)):
        for v in np.unique(other):
            sel = other == v
            order = np.argsort(key[sel])
            if np.any(np.diff(ms[sel][order]) < -0.1 * ms[sel].max()):
                bad.append("time fell as the batch grew" if key is n else
                           "time fell as inputs got longer")
    if rel > MAX_FIT_RMS:
        bad.append(f"the fit misses a batch's time by {rel:.0%} (RMS)")
    if bad:
        return fallback, (f"The measurements look noisy ({'; '.join(sorted(set(bad)))}): using "
                          f"the lab's shipped coefficients {fallback} instead. {NOT_THIS_MACHINE}")
    return fit, (f"Fitted on this machine: {fit} (it misses a batch's time by {rel:.0%}, RMS "
                 "of the relative errors).")


def checked_step_fit(steps, fallback=None) -> tuple:
    """Fit ``StepCost`` to measured decode ``StepRecord``s; check it, else use ``fallback``
    (default: the shipped ``stepsim.DEFAULT_COST``, fitted on the lab's 2-core CPU).

    Checks: the median absolute residual is ≤ ``MAX_REL_RESIDUAL`` of the median step (the
    fit drops stalled steps, so the residual is a robust one too); measured time does not
    fall as steps get bigger (medians over quartiles of the fitted cost); some per-row or
    per-token cost is > 0. Returns the ``StepCost`` and a one-line note saying which one is
    used and why."""
    from ..decoder.stepsim import DEFAULT_COST, StepCost
    fallback = DEFAULT_COST if fallback is None else fallback
    fit = StepCost.fit(steps)
    ms = np.array([st.ms for st in steps], float)
    pred = np.array([fit.cost(st.seqs, st.tokens, st.kv_read) for st in steps])
    rel = float(np.median(np.abs(pred - ms)) / max(np.median(ms), 1e-9))
    bad = []
    if rel > MAX_REL_RESIDUAL:
        bad.append(f"the fit misses a typical step by {rel:.0%}")
    order = np.argsort(pred, kind="stable")
    meds = [float(np.median(ms[q])) for q in np.array_split(order, 4) if len(q)]
    if np.any(np.diff(meds) < -0.1 * max(meds)):
        bad.append("bigger steps measured faster than smaller ones")
    if fit.per_seq_ms <= 0 and fit.per_token_ms <= 0:
        bad.append("the fit says a step costs the same whatever it computes")
    if bad:
        return fallback, (f"The step timings look noisy ({'; '.join(bad)}): using the lab's "
                          f"shipped coefficients ({_step_str(fallback)}) instead. "
                          f"{NOT_THIS_MACHINE}")
    return fit, (f"Fitted on this machine: {_step_str(fit)} (median residual {rel:.0%} of "
                 f"the median step, {len(steps)} steps).")


def _step_str(c) -> str:
    return (f"fixed {c.fixed_ms:.3f} ms + {c.per_seq_ms:.4f}/row + {c.per_token_ms:.4f}/token "
            f"fed + {c.per_kv_ms:.5f}/KV token read")
