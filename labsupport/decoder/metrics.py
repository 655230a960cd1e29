"""Decode metrics from an ``EngineResult`` (vLLM's definitions; times in ms).

TTFT = first token − arrival (queueing included); TPOT = (E2E − TTFT) / (output − 1);
E2E = last token − arrival; tokens/s = generated tokens / (last finish − first arrival);
slot utilisation = share of the ``max_seqs`` places doing work, weighted by step time,
over all steps and over the *backlogged* steps (someone was waiting: idle places there
are waste); mean running = the same as a number of sequences; goodput = requests/s
meeting both SLOs.
"""
from __future__ import annotations

import numpy as np

from ..metrics import percentiles
from .tokentimes import token_metrics


def per_request(res) -> dict[str, np.ndarray]:
    """Per-request arrays from the sequences' token timestamps (``tokentimes``)."""
    s = res.sequences
    m = token_metrics([q.arrival for q in s], [q.token_times for q in s])
    return {"arrival": np.array([q.arrival for q in s]), "ttft": m["ttft"], "tpot": m["tpot"],
            "e2e": m["e2e"], "out": m["out"], "finish": np.array([q.finish for q in s])}


def mean_running(res, backlogged: bool = False) -> float:
    """Time-weighted mean number of sequences computing in a step (rows fed at least one
    token): how full the batch really was (``backlogged``: only steps with a queue)."""
    steps = [st for st in res.steps if st.waiting > 0 or not backlogged]
    ms = np.array([st.ms for st in steps])
    rows = np.array([sum(1 for r in st.rows if r[2] > 0) for st in steps])
    return float((rows * ms).sum() / ms.sum()) if ms.sum() > 0 else float("nan")


def slot_utilisation(res, backlogged: bool = False) -> float:
    """Time-weighted share of places feeding tokens: ``mean_running / max_seqs``."""
    return mean_running(res, backlogged) / res.config.max_seqs


def summarize_decode(res, slo_ttft_ms: float | None = None, slo_tpot_ms: float | None = None) -> dict:
    r = per_request(res)
    span = np.nanmax(r["finish"]) - r["arrival"].min()
    tok = int(r["out"].sum())
    out = {"requests": len(r["out"]), "tokens": tok, "steps": len(res.steps),
           "tokens_per_s": 1000.0 * tok / span if span > 0 else float("nan"),
           "slot_util": slot_utilisation(res),
           "slot_util_backlogged": slot_utilisation(res, backlogged=True),
           "mean_running": mean_running(res),
           "stopped_early": int(sum(q.stopped and len(q.output) < q.max_new_tokens
                                    for q in res.sequences)),
           "kv_peak_share": res.peak_kv_blocks / res.num_blocks if res.num_blocks else 0.0,
           "preemptions": int(sum(q.preemptions for q in res.sequences))}
    for name in ("ttft", "tpot", "e2e"):
        for k, v in percentiles(r[name], (50, 99)).items():
            out[f"{name}_{k}_ms"] = v
    if slo_ttft_ms is not None or slo_tpot_ms is not None:
        ok = np.ones(len(r["out"]), bool)
        if slo_ttft_ms is not None:
            ok &= r["ttft"] <= slo_ttft_ms
        if slo_tpot_ms is not None:
            ok &= np.nan_to_num(r["tpot"], nan=0.0) <= slo_tpot_ms
        out["goodput_rps"] = 1000.0 * ok.sum() / span if span > 0 else 0.0
        out["slo_met"] = float(ok.mean())
    return out


def kv_waste(res) -> float:
    """Share of the KV blocks in use that hold no token (reserved ahead, or the unused tail
    of a sequence's last block), weighted by step time: ``1 − kv_tokens / (kv_blocks ×
    block_size)`` over the steps."""
    bs = res.config.block_size
    ms = np.array([st.ms for st in res.steps])
    held = np.array([st.kv_blocks * bs for st in res.steps], float)
    used = np.array([st.kv_tokens for st in res.steps], float)
    w = ms * held
    return float(1.0 - (ms * used).sum() / w.sum()) if w.sum() > 0 else 0.0

