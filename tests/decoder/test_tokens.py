"""The real engine (tiny GPT-2) is token-identical to transformers' greedy ``generate``
(``decoder.oracle``): several seeds, both modes, both admission rules, chunked prefill,
forced preemption, prefix caching, and answers that stop at their EOS before the cap."""
import pytest

torch = pytest.importorskip("torch")

from labsupport.decoder import Engine, ModelRunner, SchedulerConfig  # noqa: E402
from labsupport.decoder.oracle import greedy_reference, stop_tokens  # noqa: E402
from labsupport.decoder.runner import tiny_gpt2  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """A 2-layer model runs fastest, and steadiest on a shared machine, on one thread."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _reference(model, prompts, outs):
    return [greedy_reference(model, [p], n)[0] for p, n in zip(prompts, outs)]


@pytest.fixture(scope="module", params=[0, 1, 2], ids=lambda s: f"seed{s}")
def case(request):
    seed = request.param
    model = tiny_gpt2(seed)
    g = torch.Generator().manual_seed(100 + seed)
    n = 10
    prompts = [torch.randint(0, 1000, (int(k),), generator=g).tolist()
               for k in torch.randint(1, 40, (n,), generator=g)]
    outs = [int(k) for k in torch.randint(1, 25, (n,), generator=g)]
    return model, prompts, outs, _reference(model, prompts, outs)


KNOBS = {
    "continuous-reserve": dict(mode="continuous", admission="reserve", max_seqs=4),
    "continuous-on_demand-preempt": dict(mode="continuous", admission="on_demand", max_seqs=6,
                                         kv_budget_tokens=80, block_size=8,
                                         max_tokens_per_step=24),
    "request-level": dict(mode="request", admission="reserve", max_seqs=4),
}


@pytest.mark.parametrize("name", KNOBS)
def test_token_identical_to_generate(case, name):
    model, prompts, outs, refs = case
    eng = Engine(ModelRunner(model, device="cpu"), SchedulerConfig(**KNOBS[name]))
    finished = []
    res = eng.run([(p, n, 2.0 * i) for i, (p, n) in enumerate(zip(prompts, outs))],
                  on_finish=finished.append)
    assert sorted(s.id for s in finished) == list(range(len(prompts)))   # each once
    assert [s.output for s in res.sequences] == refs
    assert res.peak_kv_blocks <= res.num_blocks
    if "preempt" in name:
        assert sum(s.preemptions for s in res.sequences) > 0, "no preemption was forced"


def test_step_api_as_the_demo_uses_it():
    model = tiny_gpt2(0)
    eng = Engine(ModelRunner(model, device="cpu"), SchedulerConfig(max_seqs=2))
    a, b = eng.add([5, 17, 42], 6), eng.add([7, 7], 3)
    done = []
    while eng.has_work():
        done += eng.step()
    assert [s.id for s in done] == [b.id, a.id]
    assert [a.output, b.output] == _reference(model, [[5, 17, 42], [7, 7]], [6, 3])


def test_a_request_longer_than_the_model_is_rejected_when_added():
    from labsupport.decoder import RequestTooLong
    eng = Engine(ModelRunner(tiny_gpt2(0, n_positions=64), device="cpu"),
                 SchedulerConfig(max_seqs=2))
    with pytest.raises(RequestTooLong, match="n_positions=64"):
        eng.add(list(range(60)), 10)
    assert not eng.has_work()


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA (CPU twin above)")
def test_token_identical_on_cuda():
    model = tiny_gpt2(0)
    prompts, outs = [[1, 2, 3], [4] * 20, [9, 8]], [5, 7, 9]
    refs = _reference(model, prompts, outs)
    eng = Engine(ModelRunner(model, device="cuda"), SchedulerConfig(max_seqs=2))
    res = eng.run([(p, n, 0.0) for p, n in zip(prompts, outs)])
    assert [s.output for s in res.sequences] == refs


PREFIX_KNOBS = {
    "off": dict(max_seqs=4),
    "on": dict(max_seqs=4, prefix_caching=True, block_size=8),
    "on-evicting-preempting": dict(max_seqs=4, prefix_caching=True, block_size=8,
                                   admission="on_demand", kv_budget_tokens=112,
                                   max_tokens_per_step=32),
}


@pytest.fixture(scope="module")
def shared():
    from labsupport.decoder.workload import shared_prefix_requests
    model = tiny_gpt2(3)
    reqs = shared_prefix_requests(12, 40, prefixes=2, suffix_len=(1, 12), output_len=(2, 20),
                                  gap_ms=2.0, seed=5)
    prompts, outs = [r.payload for r in reqs], [r.output_len for r in reqs]
    return model, reqs, _reference(model, prompts, outs)


@pytest.mark.parametrize("name", PREFIX_KNOBS)
def test_prefix_caching_is_token_identical_to_generate(shared, name):
    model, reqs, refs = shared
    res = Engine(ModelRunner(model, device="cpu"), SchedulerConfig(**PREFIX_KNOBS[name])).run(reqs)
    assert [s.output for s in res.sequences] == refs
    if name != "off":
        assert res.prefix_hit_tokens > 0
    if "evicting" in name:
        assert res.evictions > 0, "the budget did not force an eviction"
        assert sum(s.preemptions for s in res.sequences) > 0, "no preemption was forced"


@pytest.mark.parametrize("seed", [4, 5])
def test_all_at_once_eos_prefix_preemption_chunking_tiny_budget(seed):
    """EOS-stopping answers under a cap, prefix caching, on-demand admission with
    preemption, chunked prefill and a tiny KV budget, all in one run: every answer is
    transformers' greedy ``generate`` with the same stop token, token for token."""
    from labsupport.decoder.workload import shared_prefix_requests
    model, cap = tiny_gpt2(seed), 40
    reqs = shared_prefix_requests(12, 40, prefixes=2, suffix_len=(1, 12), output_len=(2, 20),
                                  gap_ms=2.0, seed=seed)
    prompts = [r.payload for r in reqs]
    stops = stop_tokens(model, prompts, cap)
    refs = greedy_reference(model, prompts, cap, stops)
    knobs = dict(max_seqs=4, prefix_caching=True, block_size=8, admission="on_demand",
                 kv_budget_tokens=112, max_tokens_per_step=32)
    res = Engine(ModelRunner(model, device="cpu"), SchedulerConfig(**knobs)).run(
        [(r.payload, cap, r.arrival, r.id, eos) for r, eos in zip(reqs, stops)])
    assert [s.output for s in res.sequences] == refs
    ended = [s for s in res.sequences if s.stopped]
    assert ended and all(len(s.output) < cap for s in ended), "no answer ended at its EOS"
    assert any(len(s.output) == cap for s in res.sequences), "no answer ran to its cap"
    assert res.prefix_hit_tokens > 0 and res.evictions > 0
    assert sum(s.preemptions for s in res.sequences) > 0, "no preemption was forced"
    assert max(len(r.payload) for r in reqs) > knobs["max_tokens_per_step"]  # chunked prefill
    assert res.peak_kv_blocks <= res.num_blocks
