"""``labsupport bench gpu``: a clear skip without CUDA, its decoder check on the CPU twin,
and the whole script on CUDA when there is one."""
import json

import pytest

torch = pytest.importorskip("torch")

from labsupport.benches import gpu  # noqa: E402


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present: the bench runs instead")
def test_without_cuda_it_prints_a_skip_that_says_why(capsys):
    assert gpu.main([]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bench"] == "gpu" and out["skipped"] is True
    assert "no CUDA device" in out["reason"] and "--allow-cpu" in out["reason"]


def test_the_decoder_check_is_token_identical_on_cpu():
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # a 2-layer model is fastest, and steadiest, on one thread
    try:
        out = gpu.bench_decoder(torch.device("cpu"), n=3, repeats=1)
    finally:
        torch.set_num_threads(before)
    assert out["token_identical"] and out["token_identical_requests"] == 3
    assert out["tokens_per_s"] > 0


def test_goals_compare_against_their_thresholds():
    g = gpu._met({"a": {"value": 0.79, "goal": ">= 0.8"}, "b": {"value": 1.3, "goal": ">= 1.2"},
                  "c": {"value": False, "goal": "true"}})
    assert [v["met"] for v in g.values()] == [False, True, False]


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_on_cuda_the_whole_bench_runs_and_the_decoder_matches(capsys):
    assert gpu.main(["--texts", "128", "--repeats", "1", "--requests", "8"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["skipped"] is False and out["decoder"]["token_identical"]
    assert out["encoder"]["batcher_static"]["min_cosine_to_offline"] > 0.99
