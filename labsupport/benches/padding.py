"""``labsupport bench padding``: FIFO vs bucketed batches of the real MiniLM encoder.

The same ``n`` texts of the shipped corpus (realistic lengths) wait as one backlog; the
``work_conserving`` policy batches them in arrival order (FIFO), the ``bucketed`` policy
by length bucket, both at the same ``max_batch``. Both plans run through the encoder in
one process, their batches interleaved; prints JSON with padded-token share,
sentences/s and the ratio. Goals: bucketed share <= 10 % where FIFO >= 40 %, >= 1.5× FIFO.
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np


def _run(enc, texts, plans: dict, static_edges, compile: bool = False) -> tuple[dict, dict]:
    """Embed every plan's batches, interleaved batch by batch (so load drift on a shared
    machine hits all plans alike); synchronised seconds per plan and its embeddings."""
    from ..device import sync_timer
    secs = {name: [] for name in plans}
    vecs = {name: np.zeros((len(texts), 384), np.float32) for name in plans}
    longest = max(len(p) for p in plans.values())
    for i in range(longest):
        for name, plan in plans.items():
            if i >= len(plan):
                continue
            b = plan[i]
            chunk = [texts[k] for k in b]
            with sync_timer(enc.device, secs[name]):
                v = enc.embed_static(chunk, static_edges, compile=compile) \
                    if name.endswith("_static") \
                    else enc.embed(chunk)
            vecs[name][b] = v
    return {name: sum(t) / 1000.0 for name, t in secs.items()}, vecs


def _threads() -> int:
    import torch
    return torch.get_num_threads()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="labsupport bench padding", description=__doc__)
    ap.add_argument("--n", type=int, default=256, help="texts from the corpus (default 256)")
    ap.add_argument("--max-batch", type=int, default=32, help="max_batch for both plans")
    ap.add_argument("--repeats", type=int, default=1, help="timed passes per plan")
    ap.add_argument("--device", default=None, help="cpu | cuda (default: auto)")
    ap.add_argument("--static", action="store_true",
                    help="also time bucketed batches through fixed shapes (default on CUDA)")
    ap.add_argument("--compile", action="store_true",
                    help="CUDA only: the static path through torch.compile (CUDA graphs)")
    ap.add_argument("--threads", type=int, default=None,
                    help="CPU threads for torch (default: torch's choice; 1 is steadier on a "
                         "machine shared with other jobs)")
    a = ap.parse_args(argv)
    from ..encoder.corpus import texts_and_lengths
    from ..encoder.model import load_encoder
    from ..batching.plans import backlog_batches, sorted_batches, waste
    from ..batching.shapes import DEFAULT_EDGES
    from ..batching.bucketed import Bucketed
    from ..validate import check_int
    check_int("n", a.n, 1)
    check_int("max_batch", a.max_batch, 1, 4096)
    check_int("repeats", a.repeats, 1)

    if a.threads is not None:
        import torch
        torch.set_num_threads(check_int("threads", a.threads, 1, 1024))
    t0, load0 = time.perf_counter(), os.getloadavg()[0]  # a busy machine slows both plans
    enc = load_encoder(a.device)
    texts, _ = texts_and_lengths(a.n)
    lengths = [len(s) for s in enc.token_ids(texts)]
    plans = {"fifo": backlog_batches(lengths, "work_conserving", max_batch=a.max_batch),
             "bucketed": backlog_batches(lengths, Bucketed(max_batch=a.max_batch))}
    if a.static or enc.cuda:
        plans["bucketed_static"] = plans["bucketed"]
    enc.embed(texts[:a.max_batch])  # warm-up (allocator, kernels)
    if "bucketed_static" in plans:
        _run(enc, texts, {"bucketed_static": plans["bucketed"]}, DEFAULT_EDGES,
             a.compile)  # warm (and capture) every shape once
    secs: dict[str, list[float]] = {k: [] for k in plans}
    for _ in range(a.repeats):
        took, vecs = _run(enc, texts, plans, DEFAULT_EDGES, a.compile)
        for name, s in took.items():
            secs[name].append(s)
    out = {"device": str(enc.device), "dtype": str(enc.dtype).replace("torch.", ""),
           "cpus": os.cpu_count(), "torch_threads": _threads(),
           "loadavg_1min_at_start": round(load0, 2),
           "n": a.n, "max_batch": a.max_batch, "repeats": a.repeats,
           "edges": list(DEFAULT_EDGES),
           "lengths": {"median": float(np.median(lengths)), "mean": float(np.mean(lengths)),
                       "max": int(max(lengths))},
           "sorted_window_padded_share": round(
               waste(lengths, sorted_batches(lengths, a.max_batch))["share"], 4)}
    for name, s in secs.items():
        plan = plans[name]
        w = waste(lengths, plan, edges=DEFAULT_EDGES if name.endswith("static") else None)
        best = min(s)
        out[name] = {"batches": len(plan), "padded_share": round(w["share"], 4),
                     "padded_tokens": w["padded_tokens"], "seconds": round(best, 3),
                     "sentences_per_s": round(a.n / best, 1)}
    out["speedup_bucketed_vs_fifo"] = round(min(secs["fifo"]) / min(secs["bucketed"]), 2)
    out["max_abs_diff_fifo_vs_bucketed"] = float(np.abs(vecs["fifo"] - vecs["bucketed"]).max())
    out["goals"] = {"bucketed_share_le_0.10": out["bucketed"]["padded_share"] <= 0.10,
                    "fifo_share_ge_0.40": out["fifo"]["padded_share"] >= 0.40,
                    "speedup_ge_1.5": out["speedup_bucketed_vs_fifo"] >= 1.5}
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
