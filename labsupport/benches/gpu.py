"""``labsupport bench gpu``: the lab's CUDA paths, measured side by side, one JSON.

1. Encoder (MiniLM, fp16 on CUDA): the ``MicroBatcher`` fed every text at once, first
   with dynamic shapes (pad to the longest), then with static shapes (``embed_static``:
   length buckets × batch-size buckets, through ``torch.compile(mode="reduce-overhead")``,
   i.e. one CUDA graph per shape). Each is compared with an offline batched forward pass
   over the same texts, in batches of ``max_batch``. Goal: the batcher reaches ≥ 80 % of
   the offline sentences/s.
2. Static against dynamic shapes at small batches (1, 2, 4, 8 texts), after every shape
   is warmed up. Goal: ≥ 1.2× at small batches.
3. Decoder: the lab's ``Engine`` + ``ModelRunner`` on CUDA against transformers' greedy
   ``generate`` on the same device. They must be token-identical. Tokens/s is reported.

Every timing synchronises the device (``labsupport.device.sync_timer``) and is the fastest of
``--repeats``. Without CUDA it prints ``{"skipped": true, …}`` and exits 0, unless
``--allow-cpu`` asks for the same script on the CPU (a smaller dry run; no CUDA graphs).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import time

import numpy as np

EDGES = (16, 32, 64, 128, 256)          # length buckets, tokens (MiniLM max is 256)
SIZES = (1, 2, 4, 8, 16, 32)            # batch-size buckets
SMALL = (1, 2, 4, 8)                    # "small batches" for the static-shape goal


def _best(fn, device, repeats: int) -> float:
    """Fastest synchronised wall time of ``fn()`` in seconds."""
    from labsupport.device import sync_timer
    times: list[float] = []
    for _ in range(repeats):
        with sync_timer(device, times):
            fn()
    return min(times) / 1000.0


def _batcher_seconds(infer, texts: list[str], max_batch: int) -> tuple[float, np.ndarray]:
    """Every text submitted at once to a ``MicroBatcher`` around ``infer``; seconds until the
    last answer, and the answers in order."""
    from labsupport.batching.runtime import MicroBatcher

    async def go():
        async with MicroBatcher(lambda b: list(infer(b)), max_batch=max_batch, max_delay_ms=2.0,
                                max_queue=len(texts) + 1) as mb:
            t0 = time.perf_counter()
            out = await asyncio.gather(*(mb.submit(t) for t in texts))
            return time.perf_counter() - t0, np.stack(out)
    return asyncio.run(go())


def bench_encoder(enc, texts: list[str], max_batch: int, repeats: int, graphs: bool) -> dict:
    chunks = [texts[i:i + max_batch] for i in range(0, len(texts), max_batch)]
    static = lambda b: enc.embed_static(b, EDGES, SIZES, compile=graphs)  # noqa: E731
    offline_vecs = np.concatenate([enc.embed(c) for c in chunks])         # warm-up + reference
    t0 = time.perf_counter()
    for c in chunks:
        static(c)                                                          # capture every shape
    warm = time.perf_counter() - t0
    off = _best(lambda: [enc.embed(c) for c in chunks], enc.device, repeats)
    out = {"texts": len(texts), "max_batch": max_batch, "static_warmup_s": warm, "offline_s": off,
           "offline_sentences_per_s": len(texts) / off}
    for name, fn in (("dynamic", enc.embed), ("static", static)):
        runs = [_batcher_seconds(fn, texts, max_batch) for _ in range(repeats)]
        secs, vecs = min(runs, key=lambda r: r[0])
        cos = float(np.min(np.sum(vecs * offline_vecs, axis=1)))
        out[f"batcher_{name}"] = {"seconds": secs, "sentences_per_s": len(texts) / secs,
                                  "of_offline": off / secs, "min_cosine_to_offline": cos}
    return out


def bench_shapes(enc, texts: list[str], repeats: int, graphs: bool, per_size: int) -> dict:
    rows = {}
    for bs in SMALL:
        pool = (texts * (bs * per_size // len(texts) + 1))[:bs * per_size]  # reuse if few
        chunks = [pool[i:i + bs] for i in range(0, len(pool), bs)]
        static = lambda: [enc.embed_static(c, EDGES, SIZES, compile=graphs) for c in chunks]  # noqa: E731
        dynamic = lambda: [enc.embed(c) for c in chunks]  # noqa: E731
        static(), dynamic()                                  # warm every shape
        t_dyn, t_sta = _best(dynamic, enc.device, repeats), _best(static, enc.device, repeats)
        rows[str(bs)] = {"dynamic_ms_per_batch": 1000 * t_dyn / len(chunks),
                         "static_ms_per_batch": 1000 * t_sta / len(chunks),
                         "static_speedup": t_dyn / t_sta}
    return rows


def bench_decoder(device, n: int, repeats: int) -> dict:
    import torch

    from labsupport.decoder import Engine, ModelRunner, SchedulerConfig
    from labsupport.decoder.runner import tiny_gpt2
    model = tiny_gpt2(0).to(device)
    g = torch.Generator().manual_seed(7)
    prompts = [torch.randint(0, 1000, (int(k),), generator=g).tolist()
               for k in torch.randint(4, 48, (n,), generator=g)]
    outs = [int(k) for k in torch.randint(8, 48, (n,), generator=g)]
    refs = []
    for p, k in zip(prompts, outs):
        ids = torch.tensor([p], device=device)
        gen = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=k,
                             do_sample=False, pad_token_id=0)
        refs.append(gen[0, len(p):].tolist())
    got = {}

    def run():
        eng = Engine(ModelRunner(model, device=device), SchedulerConfig(max_seqs=n))
        res = eng.run([(p, k, 0.0) for p, k in zip(prompts, outs)])
        got["out"] = [s.output for s in res.sequences]
    run()  # warm-up
    secs = _best(run, device, repeats)
    same = sum(a == b for a, b in zip(got["out"], refs))
    return {"requests": n, "tokens": sum(outs), "seconds": secs, "tokens_per_s": sum(outs) / secs,
            "token_identical_requests": same, "token_identical": same == n}


def goals(enc: dict, shapes: dict, dec: dict) -> dict:
    small = min(r["static_speedup"] for r in shapes.values())
    return {
        "batcher_dynamic_of_offline": {"value": enc["batcher_dynamic"]["of_offline"],
                                       "goal": ">= 0.8"},
        "batcher_static_of_offline": {"value": enc["batcher_static"]["of_offline"],
                                      "goal": ">= 0.8"},
        "static_speedup_small_batches_min": {"value": small, "goal": ">= 1.2"},
        "decoder_token_identical": {"value": dec["token_identical"], "goal": "true"},
    }


def _met(g: dict) -> dict:
    for v in g.values():
        goal = v["goal"]
        v["met"] = bool(v["value"]) if goal == "true" else v["value"] >= float(goal.split()[-1])
    return g


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="labsupport bench gpu", description=__doc__.split("\n\n")[0])
    ap.add_argument("--texts", type=int, default=None, help="corpus texts (512 CUDA, 64 CPU)")
    ap.add_argument("--max-batch", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=3, help="timed passes; the fastest counts")
    ap.add_argument("--requests", type=int, default=16, help="decoder requests")
    ap.add_argument("--allow-cpu", action="store_true",
                    help="without CUDA, run the same script on the CPU (dry run, no graphs)")
    a = ap.parse_args(argv)
    import torch
    cuda = torch.cuda.is_available()
    if not cuda and not a.allow_cpu:
        print(json.dumps({"bench": "gpu", "skipped": True,
                          "reason": "no CUDA device (torch.cuda.is_available() is False; "
                                    f"torch {torch.__version__}, CUDA build "
                                    f"{torch.version.cuda}); --allow-cpu runs a CPU dry run"}))
        return 0
    from labsupport.encoder.corpus import texts_and_lengths
    from labsupport.encoder.model import Encoder
    device = torch.device("cuda" if cuda else "cpu")
    graphs, graphs_error = cuda, None
    if cuda:  # one compiled graph per (batch, length) shape: allow them all, not dynamo's 8
        try:
            import torch._dynamo
            torch._dynamo.config.cache_size_limit = max(64, len(EDGES) * len(SIZES) * 2)
        except Exception as exc:  # a torch without dynamo: static shapes run eager
            graphs, graphs_error = False, f"{type(exc).__name__}: {exc}"
    n = a.texts or (512 if cuda else 64)
    texts, _ = texts_and_lengths(n)
    t0 = time.perf_counter()
    enc = Encoder(device)
    try:
        encoder = bench_encoder(enc, texts, a.max_batch, a.repeats, graphs=graphs)
    except Exception as exc:  # e.g. no compiler for inductor on this machine: go on eager
        if not graphs:
            raise
        graphs, graphs_error = False, f"{type(exc).__name__}: {exc}"[:500]
        encoder = bench_encoder(enc, texts, a.max_batch, a.repeats, graphs=False)
    shapes = bench_shapes(enc, texts, a.repeats, graphs=graphs, per_size=32 if cuda else 4)
    decoder = bench_decoder(device, a.requests, a.repeats)
    report = {"bench": "gpu", "skipped": False, "device": str(device),
              "gpu": torch.cuda.get_device_name(0) if cuda else None,
              "encoder_dtype": str(enc.dtype), "cuda_graphs": graphs, "graphs_error": graphs_error, "torch": torch.__version__,
              "encoder": encoder, "small_batches": shapes, "decoder": decoder,
              "goals": _met(goals(encoder, shapes, decoder)),
              "wall_s": time.perf_counter() - t0}
    print(json.dumps(report, indent=1))
    return 0
