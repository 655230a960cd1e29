"""The machinery behind notebook 06's ex06_6 (in ``ex06``): picking ``max_seqs`` from a sweep
under a TTFT and a TPOT SLO. ``pick`` is the lab's rule: among the rows whose p99 TTFT and
p99 TPOT are within the SLOs (ms, ``<=``), the one with the most goodput (requests/s within
both SLOs); ties go to the smaller ``max_seqs`` (fewer places, less KV); None when no row
meets both. The cases are built so each known mistake picks a different row."""
from __future__ import annotations

import numpy as np

from ..decoder import metrics
from ..decoder.stepsim import StepCost, simulate_steps
from ..traffic import Request
from ..validate import check_float
from .guard import case_rng

COST = StepCost(fixed_ms=0.5, per_seq_ms=0.08, per_token_ms=0.01, per_kv_ms=0.0002)


def pick(rows, slo_ttft_ms: float, slo_tpot_ms: float) -> int | None:
    """The lab's answer: most goodput within both SLOs, ties → smaller ``max_seqs``."""
    ok = [r for r in rows if r["ttft_p99_ms"] <= slo_ttft_ms and r["tpot_p99_ms"] <= slo_tpot_ms]
    if not ok:
        return None
    return min(ok, key=lambda r: (-r["goodput_rps"], r["max_seqs"]))["max_seqs"]


def step_slo(steps, ttft_steps: float = 100.0, tpot_steps: float = 0.7) -> dict:
    """SLOs in steps, set apart from any pick: ``ttft_steps`` and ``tpot_steps`` (> 0) times
    the median ``ms`` of ``steps`` (a reference run's ``StepRecord``s, e.g. a backlog with
    every place full). A faster or busier machine moves the milliseconds, not the promise
    in steps; which ``max_seqs`` keeps it, if any, is the sweep's to say."""
    ms = sorted(float(st.ms) for st in steps)
    if not ms:
        raise ValueError("steps must hold at least one step of the reference run, got none")
    for name, k in (("ttft_steps", ttft_steps), ("tpot_steps", tpot_steps)):
        check_float(name, k, 0.0, lo_open=True)
    unit = float(np.median(ms))
    return {"slo_ttft_ms": ttft_steps * unit, "slo_tpot_ms": tpot_steps * unit}


def row(m: int, goodput: float, ttft: float, tpot: float, tps: float) -> dict:
    """One sweep row as ``metrics.summarize_decode(..., slo)`` gives it, plus ``max_seqs``."""
    return {"max_seqs": m, "goodput_rps": goodput, "ttft_p99_ms": ttft, "tpot_p99_ms": tpot,
            "tokens_per_s": tps, "ttft_p50_ms": ttft / 3, "tpot_p50_ms": tpot / 2}


def _hand_cases() -> list[tuple[list[dict], float, float, str]]:
    """(rows, slo_ttft_ms, slo_tpot_ms, what the case tests)."""
    base = [row(1, 2.0, 900.0, 1.0, 300.0), row(4, 6.0, 300.0, 2.0, 900.0),
            row(8, 9.0, 150.0, 3.5, 1500.0), row(16, 7.0, 120.0, 6.0, 2400.0),
            row(32, 4.0, 100.0, 9.0, 3000.0)]
    return [
        (base, 200.0, 4.0, "max_seqs=16 has lower TTFT but breaks the TPOT SLO"),
        (base, 200.0, 10.0, "max_seqs=32 has the most tokens/s, max_seqs=16 the most goodput"),
        ([row(2, 5.0, 80.0, 1.0, 500.0), row(8, 8.0, 90.0, 2.0, 1200.0),
          row(16, 6.0, 95.0, 3.0, 2000.0), row(64, 3.0, 99.0, 3.9, 2600.0)], 100.0, 4.0,
         "every row meets both SLOs; the largest is not the best"),
        ([row(4, 7.5, 50.0, 2.0, 800.0), row(8, 7.5, 60.0, 2.5, 1400.0),
          row(16, 5.0, 70.0, 3.0, 1800.0)], 100.0, 4.0, "a tie in goodput"),
        ([row(4, 3.0, 500.0, 1.0, 700.0), row(8, 4.0, 400.0, 5.0, 1300.0)], 100.0, 4.0,
         "no row meets both SLOs"),
        ([row(4, 3.0, 100.0, 2.0, 700.0), row(8, 6.0, 100.0, 4.0, 1300.0),
          row(16, 8.0, 90.0, 4.5, 1900.0)], 100.0, 4.0, "a p99 exactly at the SLO meets it"),
    ]


def _sim_rows(seed: int, slo: dict) -> list[dict]:
    rng = np.random.default_rng(seed)
    n = 120
    out = np.clip(np.round(rng.lognormal(3.3, 0.9, n)), 1, 150).astype(int)
    reqs = [Request(i, float(t), int(p), int(o)) for i, (t, p, o) in enumerate(
        zip(np.cumsum(rng.exponential(1.0, n)), rng.integers(4, 60, n), out))]
    return [{"max_seqs": m, **metrics.summarize_decode(simulate_steps(reqs, cost=COST, max_seqs=m,
                                                         kv_budget_tokens=4096), **slo)}
            for m in (1, 2, 4, 8, 16, 32, 64)]


def cases(hidden: bool) -> list[tuple[list[dict], float, float, str]]:
    """Visible: the hand-built rows. Hidden (drawn from the grader's seed): the same
    shuffled, plus simulated sweeps under drawn SLOs (one that every row meets)."""
    hand = _hand_cases()
    if not hidden:
        return hand
    rng = case_rng("ex06_6", True)
    out = [([r[i] for i in rng.permutation(len(r))], t, p, what + " (rows out of order)")
           for r, t, p, what in hand]
    seeds = [int(s) for s in rng.integers(1, 2**31, 3)]
    slos = (dict(slo_ttft_ms=float(np.round(rng.uniform(60, 200))),
                 slo_tpot_ms=float(np.round(rng.uniform(2.0, 5.0), 1))),
            dict(slo_ttft_ms=float(np.round(rng.uniform(30, 90))),
                 slo_tpot_ms=float(np.round(rng.uniform(1.5, 3.0), 1))),
            dict(slo_ttft_ms=1e9, slo_tpot_ms=1e9))
    for seed, slo in zip(seeds, slos):
        out.append((_sim_rows(seed, slo), slo["slo_ttft_ms"], slo["slo_tpot_ms"],
                    f"a simulated sweep with SLO {slo}"))
    return out


def hint(rows, slo_ttft_ms: float, slo_tpot_ms: float, got) -> str:
    """What the student's pick most likely got wrong."""
    by = {r["max_seqs"]: r for r in rows}
    if got is None:
        return "some rows meet both SLOs: return one of their max_seqs"
    if got not in by:
        return f"return a max_seqs from the rows (one of {sorted(by)}), or None"
    r = by[got]
    if r["tpot_p99_ms"] > slo_tpot_ms:
        return (f"max_seqs={got} has TPOT p99 {r['tpot_p99_ms']:.3g} ms > {slo_tpot_ms} ms: "
                "a row must meet BOTH SLOs (TTFT p99 and TPOT p99, each <= its SLO)")
    if r["ttft_p99_ms"] > slo_ttft_ms:
        return (f"max_seqs={got} has TTFT p99 {r['ttft_p99_ms']:.3g} ms > {slo_ttft_ms} ms: "
                "a row must meet BOTH SLOs")
    want = pick(rows, slo_ttft_ms, slo_tpot_ms)
    if want is None:
        return "no row meets both SLOs: return None"
    w = by[want]
    if r["goodput_rps"] < w["goodput_rps"]:
        return (f"max_seqs={want} serves more requests within the SLOs (goodput "
                f"{w['goodput_rps']:.3g} > {r['goodput_rps']:.3g} req/s): rank by goodput_rps, "
                "not tokens/s and not the number of places")
    return ("two rows tie on goodput: take the smaller max_seqs (fewer places, less KV, "
            "the same requests served)")
