"""``labsupport bench decode``: continuous vs request-level decoding on the same model and
the same trace workload, plus transformers' own continuous batching as a peer. Prints JSON.

Runs (one process, one model, one after another):
1. trace: Azure conversation arrivals (compressed to overload the engine), lengths drawn
   from the whole trace's mix and scaled to the tiny model; continuous (reserve and
   on-demand admission) vs request-level (a static batch: early finishers keep their
   place and keep computing padding until the longest member ends).
2. offline: the same prompts all at t = 0: our continuous engine vs
   ``transformers`` continuous batching (paged cache, explicitly sized).
3. uniform: equal lengths, all at t = 0, whole batches prefilled in one step: where
   continuous batching has nothing to gain.
4. stepsim: the step-cost model fitted on run 1, and its prediction of run 1's tokens/s.

Times use the CPU-time clock of the engine thread with torch on one thread (``--clock
cpu``, the default): on a shared 2-core machine wall time swings with the neighbours'
load; wall-clock figures are reported too.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

GOALS = {"continuous_over_request": 2.0, "slot_util_backlogged": 0.90, "over_peer": 1.0}


def _args(argv):
    ap = argparse.ArgumentParser(prog="labsupport bench decode", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=256, help="requests from the trace (default 256)")
    ap.add_argument("--rate-scale", type=float, default=200.0,
                    help="arrivals this many times faster than the trace (200: overload)")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="engine clock: CPU time of the step (default) or wall time")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    ap.add_argument("--max-seqs", type=int, default=32, help="concurrent sequences (32)")
    ap.add_argument("--kv-budget", type=int, default=16384, help="KV budget in tokens (16384)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each engine, round robin; the fastest is kept (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="model and prompt seed (0)")
    ap.add_argument("--model", default=None, help="local GPT-2 checkpoint (default: tiny, seeded)")
    ap.add_argument("--slo-ttft-ms", type=float, default=1000.0, help="goodput SLO on TTFT (1000)")
    ap.add_argument("--slo-tpot-ms", type=float, default=20.0, help="goodput SLO on TPOT (20)")
    ap.add_argument("--no-peer", action="store_true", help="skip transformers' engine")
    a = ap.parse_args(argv)
    from labsupport.validate import check_float, check_int
    try:
        for name, lo in (("n", 1), ("repeat", 1), ("threads", 1), ("max_seqs", 1),
                         ("kv_budget", 1)):
            check_int(f"--{name.replace('_', '-')}", getattr(a, name), lo)
        check_float("--rate-scale", a.rate_scale, 0.0, lo_open=True)
    except ValueError as err:
        ap.error(str(err))
    return a


def _engine(model, reqs, clock="cpu", **knobs):
    from labsupport.decoder import Engine, ModelRunner, SchedulerConfig
    eng = Engine(ModelRunner(model), SchedulerConfig(**knobs), clock=clock)
    t0 = time.perf_counter()
    res = eng.run(reqs)
    res.meta["wall_s"] = time.perf_counter() - t0
    return res


def _best(model, reqs, repeat: int, variants: dict, slo: dict | None = None) -> dict:
    """Each variant ``repeat`` times, round robin; keep each one's fastest run (the least
    disturbed by other load on a shared machine)."""
    from labsupport.decoder import metrics
    best, seen = {}, {k: [] for k in variants}
    for _ in range(repeat):
        for name, knobs in variants.items():
            res = _engine(model, reqs, **knobs)
            seen[name].append(metrics.summarize(res)["tokens_per_s"])
            if name not in best or seen[name][-1] >= max(seen[name][:-1]):
                best[name] = res
    out = {k: _summary(r, slo) for k, r in best.items()}
    for k in out:
        out[k]["tokens_per_s_runs"] = [round(float(x), 1) for x in seen[k]]
    return out, best


def _summary(res, slo: dict | None = None) -> dict:
    from labsupport.decoder import metrics
    out = metrics.summarize(res, **(slo or {}))
    out["wall_s"] = res.meta["wall_s"]
    return _round(out)


def _peer(model, reqs, max_seqs: int) -> dict:
    """transformers' continuous batching on the same prompts and output lengths (t = 0)."""
    from transformers import GenerationConfig
    from transformers.generation.configuration_utils import ContinuousBatchingConfig
    gc = GenerationConfig(do_sample=False, eos_token_id=-1, max_new_tokens=max(
        r.output_len for r in reqs))
    # Sized explicitly: left at defaults on a CPU it reserves 60 % of RAM.
    cb = ContinuousBatchingConfig(num_blocks=16, page_size=32, max_batch_tokens=256)
    with model.continuous_batching_context_manager(
            generation_config=gc, continuous_batching_config=cb, block=True, timeout=5) as man:
        t0, c0 = time.perf_counter(), time.process_time()
        ids = [man.add_request(r.payload, max_new_tokens=r.output_len, eos_token_id=-1)
               for r in reqs]
        got = {}
        while len(got) < len(ids):
            res = man.get_result(timeout=10)
            if res is None and not man.is_running():
                break
            if res is not None and res.is_finished():
                got[res.request_id] = list(res.generated_tokens)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    tokens = sum(len(v) for v in got.values())
    return {"tokens": tokens, "tokens_per_s": tokens / cpu, "wall_tokens_per_s": tokens / wall,
            "wall_s": wall, "cpu_s": cpu,
            "finished": len(got), "outputs": [got.get(i) for i in ids],
            "config": "ContinuousBatchingConfig(num_blocks=16, page_size=32, max_batch_tokens=256)"}


def _round(d):
    return {k: (round(float(v), 4) if isinstance(v, float) else v) for k, v in d.items()}


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    a = _args(sys.argv[1:] if argv is None else argv)
    import torch
    torch.set_num_threads(a.threads)
    from labsupport.decoder import metrics, stepsim
    from labsupport.decoder.runner import load_model
    from labsupport.decoder.workload import trace_requests, uniform_requests
    from labsupport.traffic import load_trace

    t_start = time.perf_counter()
    model = load_model(a.model, a.seed)
    vocab = model.config.vocab_size
    trace = load_trace()
    reqs = trace_requests(a.n, rate_scale=a.rate_scale, seed=a.seed, vocab_size=vocab,
                          trace=trace)
    knobs = dict(max_seqs=a.max_seqs, kv_budget_tokens=a.kv_budget, clock=a.clock)
    _engine(model, reqs[:8], **knobs)                                    # warm-up
    trace_out, runs = _best(model, reqs, a.repeat, {
        "continuous": dict(mode="continuous", **knobs),
        "continuous_on_demand": dict(mode="continuous", admission="on_demand", **knobs),
        "request_level": dict(mode="request", **knobs)},
        slo=dict(slo_ttft_ms=a.slo_ttft_ms, slo_tpot_ms=a.slo_tpot_ms))
    outs = {k: [s.output for s in r.sequences] for k, r in runs.items()}
    same = all(o == outs["continuous"] for o in outs.values())

    at0 = [type(r)(r.id, 0.0, r.length, r.output_len, r.payload) for r in reqs]
    offline, _ = _best(model, at0, max(1, a.repeat - 1),
                       {"continuous": dict(mode="continuous", **knobs)})
    offline["continuous"]["wall_tokens_per_s"] = round(
        offline["continuous"]["tokens"] / offline["continuous"]["wall_s"], 1)
    peer_same = None
    if not a.no_peer:
        try:
            peers = [_peer(model, at0, a.max_seqs) for _ in range(max(1, a.repeat - 1))]
        except Exception as exc:  # a peer that breaks must not hide our own figures
            offline["transformers_generate_batch"] = {"error": f"{type(exc).__name__}: {exc}"}
            a.no_peer = True
        else:
            peer = max(peers, key=lambda p: p["tokens_per_s"])
            peer["tokens_per_s_runs"] = [round(p["tokens_per_s"], 1) for p in peers]
            peer_same = sum(p == o for p, o in zip(peer.pop("outputs"), outs["continuous"]))
            offline["transformers_generate_batch"] = _round(peer)

    uni = uniform_requests(4 * a.max_seqs, 32, 48, seed=a.seed, vocab_size=vocab)
    # a token budget that prefills a whole batch in one step, so every row starts and ends
    # together: nothing for continuous batching to repack
    flat = dict(knobs, max_tokens_per_step=32 * a.max_seqs)
    uniform, _ = _best(model, uni, a.repeat, {m: dict(mode=m, **flat)
                                              for m in ("continuous", "request")})

    cost = stepsim.StepCost.fit(runs["continuous"].steps + runs["request_level"].steps)
    sk = dict(max_seqs=a.max_seqs, kv_budget_tokens=a.kv_budget)
    sim = {m: metrics.summarize(stepsim.simulate(reqs, mode=m, cost=cost, **sk))
           ["tokens_per_s"] for m in ("continuous", "request")}

    c, r = trace_out["continuous"], trace_out["request_level"]
    ratios = {"continuous_over_request": c["tokens_per_s"] / r["tokens_per_s"],
              "slot_util_backlogged": c["slot_util_backlogged"],
              "uniform_continuous_over_request": uniform["continuous"]["tokens_per_s"]
              / uniform["request"]["tokens_per_s"]}
    if not a.no_peer:
        ratios["over_peer"] = (offline["continuous"]["tokens_per_s"]
                               / offline["transformers_generate_batch"]["tokens_per_s"])
    report = {
        "device": str(next(model.parameters()).device), "torch_threads": torch.get_num_threads(),
        "model": a.model or "tiny GPT-2 (2 layers, 128 hidden, vocab 1000, seeded)",
        "trace": trace.source, "requests": a.n, "rate_scale": a.rate_scale, **knobs,
        "offered_tokens_per_s": round(1000.0 * sum(q.output_len for q in reqs)
                                      / max(reqs[-1].arrival, 1e-9), 1),
        "workload": "arrivals: trace[0:n] compressed rate_scale x; lengths: n rows drawn at "
                    "random (seed) from the whole trace, prompts /32, outputs /4",
        "trace_run": trace_out, "offline_t0": offline, "uniform_t0": uniform,
        "outputs_identical_across_engines": same,
        "peer_outputs_identical": None if peer_same is None else f"{peer_same}/{a.n}",
        "stepsim": {"cost_ms": _round(vars(cost)),
                    "predicted_tokens_per_s": _round(sim),
                    "measured_tokens_per_s": {"continuous": c["tokens_per_s"],
                                              "request": r["tokens_per_s"]}},
        "ratios": _round(ratios),
        "goals_met": {k: bool(ratios[k] >= v) for k, v in GOALS.items() if k in ratios},
        "bench_s": round(time.perf_counter() - t_start, 1),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
