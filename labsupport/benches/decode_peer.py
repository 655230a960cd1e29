"""The peer of ``labsupport bench decode``: transformers' own continuous batching
(``continuous_batching_context_manager``, the engine behind ``generate_batch``), sized like
ours: the same KV budget in tokens (``num_blocks × page_size``, pages of our block size),
the same per-step token budget and the same number of concurrent requests."""
from __future__ import annotations

import time


def peer_sizing(max_seqs: int, kv_budget_tokens: int, block_size: int,
                max_tokens_per_step: int) -> dict:
    """``ContinuousBatchingConfig`` arguments that match our ``SchedulerConfig``."""
    return dict(num_blocks=kv_budget_tokens // block_size, page_size=block_size,
                max_batch_tokens=max_tokens_per_step, max_requests_per_batch=max_seqs,
                allow_block_sharing=False)


def run_peer(model, reqs, sizing: dict) -> dict:
    """Greedy-decode ``reqs`` (``payload`` prompt ids, ``output_len``), all at t = 0;
    tokens/s on the CPU time of the process (its worker thread included)."""
    from transformers import GenerationConfig
    from transformers.generation.configuration_utils import ContinuousBatchingConfig
    gc = GenerationConfig(do_sample=False, eos_token_id=-1,
                          max_new_tokens=max(r.output_len for r in reqs))
    cb = ContinuousBatchingConfig(**sizing)
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
            "wall_s": wall, "cpu_s": cpu, "finished": len(got),
            "outputs": [got.get(i) for i in ids],
            "sizing": {"ContinuousBatchingConfig": sizing,
                       "kv_budget_tokens": sizing["num_blocks"] * sizing["page_size"]}}
