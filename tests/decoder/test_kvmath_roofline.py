"""KV arithmetic, the roofline model and per-token metrics against hand-worked figures."""
import math

import pytest

from labsupport.decoder import kvmath, roofline
from labsupport.decoder.tokentimes import token_metrics


def test_llama3_8b_kv_bytes_and_budget_by_hand():
    c = kvmath.LLAMA3_8B
    assert kvmath.kv_bytes_per_token(c) == 2 * 32 * 8 * 128 * 2 == 128 * 1024
    # H100 80 GB at 0.9: 72 GB minus 16.06 GB of weights, in 128 KiB tokens
    want = int((0.9 * 80e9 - 16.06e9) // 131072)
    assert kvmath.kv_budget_tokens(c, 80e9, 16.06e9) == want
    assert kvmath.kv_budget_tokens(c, 16e9, 16.06e9) == 0          # weights do not fit
    no_gqa = {**c, "num_key_value_heads": 32}
    assert kvmath.kv_bytes_per_token(no_gqa) == 4 * kvmath.kv_bytes_per_token(c)


def test_kv_budget_names_a_bad_knob():
    with pytest.raises(ValueError, match="gpu_memory_utilization"):
        kvmath.kv_budget_tokens(kvmath.LLAMA3_8B, 80e9, 1e9, gpu_memory_utilization=1.5)


def test_model_config_matches_the_tiny_gpt2():
    pytest.importorskip("torch")
    from labsupport.decoder.runner import tiny_gpt2
    cfg = kvmath.model_config(tiny_gpt2())
    assert kvmath.kv_bytes_per_token(cfg) == 2 * 2 * 4 * 32 * 4      # fp32, MHA


def test_crossover_batch_of_the_roofline():
    bw, fl = roofline.GPUS["H100 SXM"][:2]
    b = roofline.crossover_batch(8.03e9, 2, bw, fl)
    assert b == math.ceil(2 * fl / (2 * bw)) == 296                  # dtype_bytes × flops / 2bw
    t = lambda n: roofline.step_s(n, 8.03e9, 2, bw, fl)              # noqa: E731
    assert t(b - 1) == t(1) and t(b) > t(b - 1)                      # flat, then compute-bound
    kvb = kvmath.kv_bytes_per_token(kvmath.LLAMA3_8B)
    assert roofline.crossover_batch(8.03e9, 2, bw, fl, kvb, 1000) is None
    assert roofline.batch_gain(t, [1, 8]) == [1.0, 8.0]


def test_token_metrics_by_hand():
    m = token_metrics([0.0, 10.0], [[4.0, 6.0, 9.0], [30.0]], slo_ttft_ms=5.0, slo_tpot_ms=2.0)
    assert list(m["ttft"]) == [4.0, 20.0] and list(m["e2e"]) == [9.0, 20.0]
    assert m["tpot"][0] == 2.5 and math.isnan(m["tpot"][1])
    assert list(m["itl"]) == [2.0, 3.0]
    assert m["tokens_per_s"] == 1000 * 4 / 30
    assert m["goodput_rps"] == 0.0                                   # 0 misses TPOT, 1 TTFT
    with pytest.raises(ValueError, match="token_times"):
        token_metrics([0.0], [[]])
