"""Checks for notebook 05 (decode basics): KV memory (ex05_4), serving metrics from token
timestamps (ex05_5) and the roofline crossover batch (ex05_6). References:
``labsupport.decoder.kvmath``, ``.tokentimes`` and ``.roofline``.
"""
from __future__ import annotations

import numpy as np

from ..decoder.kvmath import LLAMA3_8B, kv_budget_tokens, kv_bytes_per_token
from ..decoder.roofline import GPUS, crossover_batch
from ..decoder.tokentimes import token_metrics
from .guard import bounded, case_rng, exercise_check, require_callable as _callable
from .plain import describe, plain

__all__ = ["check_ex05_4", "check_ex05_5", "check_ex05_6"]


# ---- ex05_4: KV bytes per token and the KV budget ----------------------------------------

MHA = dict(num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
           hidden_size=128, dtype_bytes=4)  # a tiny model without grouped-query attention


def _config(rng) -> dict:
    """A decoder config drawn from ``rng``: GQA or not, head_dim given or implied."""
    heads = int(rng.choice([8, 12, 16, 24, 28, 32, 40, 64]))
    kv = int(rng.choice([d for d in range(1, heads + 1) if heads % d == 0]))
    dim = int(rng.choice([64, 80, 96, 128]))
    cfg = dict(num_hidden_layers=int(rng.integers(2, 81)), num_attention_heads=heads,
               num_key_value_heads=kv, hidden_size=heads * dim,
               dtype_bytes=int(rng.choice([1, 2, 4])))
    if rng.random() < 0.4:  # a config that states head_dim (not hidden_size / heads)
        cfg["head_dim"] = int(rng.choice([64, 128, 256]))
    return cfg


def _configs(hidden: bool):
    """(config, gpu_bytes, weight_bytes, gpu_memory_utilization) cases."""
    if not hidden:
        return [(LLAMA3_8B, 80e9, 2 * LLAMA3_8B["params"], 0.9), (MHA, 1e6, 2e5, 0.9)]
    rng = case_rng("ex05_4", True)
    out = []
    for _ in range(4):
        gpu = float(rng.integers(8, 200)) * 1e9
        util = float(rng.choice([0.5, 0.8, 0.9, 0.95, 1.0]))
        out.append((_config(rng), gpu, float(np.round(rng.uniform(0.05, 1.1) * util * gpu)),
                    util))
    out.append((MHA, float(rng.integers(1, 10)) * 1e6, 0.0, 1.0))
    return out


@exercise_check("ex05_4")
def check_ex05_4(obj, hidden: bool = False) -> None:
    """``obj(config, gpu_bytes, weight_bytes, gpu_memory_utilization=0.9)`` ->
    ``{"bytes_per_token", "kv_budget_tokens"}``."""
    ex = "ex05_4"
    _callable(ex, obj, "kv_budget")
    for cfg, gpu, weights, util in _configs(hidden):
        got = plain(ex, bounded(ex, obj, dict(cfg), gpu, weights, gpu_memory_utilization=util))
        if type(got) is not dict or not {"bytes_per_token", "kv_budget_tokens"} <= set(got):
            raise AssertionError(f"{ex}: return a dict with keys 'bytes_per_token' and "
                                 "'kv_budget_tokens'")
        call = (f"kv_budget(<{cfg['num_hidden_layers']} layers, {cfg['num_attention_heads']} "
                f"heads, {cfg['num_key_value_heads']} KV heads>, gpu_bytes={gpu:g}, "
                f"weight_bytes={weights:g}, gpu_memory_utilization={util})")
        want = kv_bytes_per_token(cfg)
        if type(got["bytes_per_token"]) not in (int, float) or got["bytes_per_token"] != want:
            if type(got["bytes_per_token"]) not in (int, float):
                raise AssertionError(f"{ex}: {call}: bytes_per_token must be a number, got "
                                     f"{describe(got['bytes_per_token'])}")
            ratio = got["bytes_per_token"] / want
            hint = {0.5: "count both K and V (the factor 2)",
                    cfg["num_attention_heads"] / cfg["num_key_value_heads"]:
                    "with grouped-query attention only num_key_value_heads heads are cached",
                    8.0: "bytes, not bits"}.get(ratio, "2 × layers × KV heads × head_dim × "
                                                       "dtype_bytes (head_dim = hidden_size / "
                                                       "num_attention_heads when not given)")
            raise AssertionError(f"{ex}: {call}: bytes_per_token is off: {hint}")
        tokens = kv_budget_tokens(cfg, gpu, weights, util)
        if type(got["kv_budget_tokens"]) not in (int, float) or got["kv_budget_tokens"] != tokens:
            raise AssertionError(
                f"{ex}: {call}: kv_budget_tokens is off: the engine may use "
                "gpu_memory_utilization × gpu_bytes in all; the weights come out of that, the "
                "rest holds whole tokens of KV (round down; 0 when nothing is left)")


# ---- ex05_5: metrics from per-token timestamps --------------------------------------------

def _timestamps(seed: int, n: int):
    rng = np.random.default_rng(seed)
    arrivals = np.sort(rng.uniform(0, 200, n)).round(2)
    times = []
    for a in arrivals:
        k = int(rng.integers(1, 12))
        times.append((a + rng.uniform(5, 80) + np.cumsum(rng.uniform(2, 30, k)) - 2).round(2)
                     .tolist())
    return arrivals.tolist(), times


@exercise_check("ex05_5")
def check_ex05_5(obj, hidden: bool = False) -> None:
    """``obj(arrivals, token_times, slo_ttft_ms, slo_tpot_ms)`` -> dict of ``ttft``, ``tpot``,
    ``e2e`` (per request), ``itl`` (all gaps), ``tokens_per_s``, ``goodput_rps``."""
    ex = "ex05_5"
    _callable(ex, obj, "decode_metrics")
    if not hidden:
        cases = [_timestamps(1, 6) + (60.0, 15.0),
                 ([0.0, 10.0], [[4.0, 6.0, 9.0], [30.0]], 5.0, 2.0)]
    else:  # drawn traffic; one case without a TTFT SLO, one without a TPOT SLO
        rng = case_rng(ex, True)
        ttft, tpot = float(rng.uniform(20.0, 80.0)), float(rng.uniform(5.0, 20.0))
        cases = [_timestamps(int(rng.integers(1, 2**31)), int(rng.integers(10, 40))) + slos
                 for slos in ((ttft, tpot), (1e9, tpot), (ttft, 1e9))]
    for arrivals, times, slo_t, slo_p in cases:
        got = plain(ex, bounded(ex, obj, list(arrivals), [list(t) for t in times], slo_t, slo_p))
        keys = ("ttft", "tpot", "e2e", "itl", "tokens_per_s", "goodput_rps")
        if type(got) is not dict or not set(keys) <= set(got):
            raise AssertionError(f"{ex}: return a dict with keys {', '.join(keys)}")
        want = token_metrics(arrivals, times, slo_t, slo_p)
        hints = {"ttft": "first token time − arrival (the wait in the queue counts)",
                 "tpot": "(last − first token) / (tokens − 1); NaN for a one-token answer",
                 "e2e": "last token time − arrival",
                 "itl": "every gap between consecutive tokens of one request, all requests "
                        "in order, flattened (no gap before the first token)",
                 "tokens_per_s": "all tokens / (last token of all − first arrival), ms → s",
                 "goodput_rps": "requests meeting BOTH SLOs (TTFT and TPOT; a one-token "
                                "answer meets any TPOT SLO) per second, over the same span"}
        for k in keys:
            try:
                a = np.asarray(got[k], float).ravel()
            except (TypeError, ValueError):
                raise AssertionError(f"{ex}: {k} must be numbers, got {describe(got[k])}") \
                    from None
            b = np.asarray(want[k], float).ravel()
            if a.shape != b.shape or not np.allclose(a, b, rtol=1e-6, equal_nan=True):
                raise AssertionError(f"{ex}: {k} is off for {len(arrivals)} requests "
                                     f"(slo_ttft_ms={slo_t:g}, slo_tpot_ms={slo_p:g}): {hints[k]}")


# ---- ex05_6: when decode turns compute-bound ---------------------------------------------

def _roofline_cases(rng) -> list[tuple]:
    """(params, dtype_bytes, bandwidth, flops, kv_bytes_per_token, context): one without KV,
    one where KV reads win (None), and others with a crossover below 5000."""
    out = []
    while len(out) < 6:
        p = float(np.round(rng.uniform(0.5, 80.0), 2)) * 1e9
        b = int(rng.choice([1, 2, 4]))
        bw = float(np.round(rng.uniform(0.5, 8.0), 2)) * 1e12
        fl = float(np.round(rng.uniform(50.0, 2000.0))) * 1e12
        kv = 0.0 if not out else float(kv_bytes_per_token(_config(rng)))
        ctx = 0 if not out else int(rng.integers(1, 4000))
        if len(out) == 1:  # KV reads outgrow compute: the answer is None
            ctx = int(np.ceil(2.0 * p / fl * bw / kv)) + int(rng.integers(1, 500))
        want = crossover_batch(p, b, bw, fl, kv, ctx)
        if (want is None) == (len(out) == 1) and (want is None or want <= 5000):
            out.append((p, b, bw, fl, kv, ctx))
    return out


@exercise_check("ex05_6")
def check_ex05_6(obj, hidden: bool = False) -> None:
    """``obj(params, dtype_bytes, bandwidth, flops, kv_bytes_per_token=0, context=0)`` ->
    the smallest compute-bound batch, or None."""
    ex = "ex05_6"
    _callable(ex, obj, "crossover_batch")
    kvb = kv_bytes_per_token(LLAMA3_8B)
    h100, h200 = GPUS["H100 SXM"][:2], GPUS["H200 SXM"][:2]
    cases = [(8.03e9, 2, *h100, 0.0, 0), (8.03e9, 2, *h200, kvb, 64)] if not hidden else \
        _roofline_cases(case_rng(ex, True))
    for p, b, bw, fl, kv, ctx in cases:
        got = plain(ex, bounded(ex, obj, p, b, bw, fl, kv_bytes_per_token=kv, context=ctx))
        want = crossover_batch(p, b, bw, fl, kv, ctx)
        if type(got) in (int, type(None)) and got == want:
            continue
        call = (f"crossover_batch(params={p:g}, dtype_bytes={b}, bandwidth={bw:g}, "
                f"flops={fl:g}, kv_bytes_per_token={kv:g}, context={ctx})")
        if want is None:
            hint = ("here the KV reads grow memory time faster than compute grows with the "
                    "batch: decode never turns compute-bound; return None")
        elif type(got) is int and got == want - 1:
            hint = ("at that batch compute time is still below memory time: round UP to the "
                    "first batch where 2 × params × B / flops ≥ memory time")
        else:
            hint = ("memory time = (params × dtype_bytes + B × context × kv_bytes_per_token) "
                    "/ bandwidth, compute time = 2 × params × B / flops (two FLOPs per "
                    "weight per sequence); return the smallest integer B where compute ≥ "
                    "memory")
        raise AssertionError(f"{ex}: {call} returned {describe(got)}, expected a different "
                             f"batch: {hint}")


# ---- the lab's answer to ex05_4, for notebook 05's demo cells while it is unsolved -------

def lab_kv_budget(config, gpu_bytes, weight_bytes, gpu_memory_utilization=0.9):
    """KV bytes per token, and the tokens of KV that fit beside the weights."""
    return {"bytes_per_token": kv_bytes_per_token(config),
            "kv_budget_tokens": kv_budget_tokens(config, gpu_bytes, weight_bytes,
                                                 gpu_memory_utilization)}
