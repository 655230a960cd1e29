"""A small continuous-batching LLM engine (shaped like nano-vllm), for notebooks 05 (decode
basics) and 06 (the continuous decoder) and the live demo.

Files: ``sequence`` (request state), ``kvcache`` (paged KV block manager, with optional
automatic prefix caching: ``SchedulerConfig(prefix_caching=True)``), ``scheduler``
(admission and retirement: continuous or request-level; ``reserve`` or ``on_demand``
KV admission), ``runner`` (a GPT-2 decoder over the paged cache, CPU or CUDA),
``engine`` (``step()`` = schedule → run → postprocess), ``stepsim`` (the same engine
with a fitted step-cost model instead of the model: fast, for widgets and sweeps),
``metrics`` (TTFT, TPOT, E2E, tokens/s, slot utilisation, goodput, KV waste; per-token
definitions in ``tokentimes``), ``timeline`` (slots and KV blocks over iterations), ``rules``
(the scheduler's decision rules as plain functions: admission check, on-demand growth with
preemption, admission under the token budget), ``ragged`` (one step's packed tokens:
positions, cache slots, its block-diagonal attention mask), ``oracle`` (``transformers``'
greedy ``generate``: the tokens the engine must reproduce), ``cache_effect`` (decode with
and without the KV cache, timed), ``kvmath`` (KV bytes per token, the GPU KV budget) and
``roofline`` (the decode step-time model and its crossover batch).

A request has a cap (``max_new_tokens``) and may have a stop token (``eos_token_id``): it
ends at whichever comes first; the scheduler only knows the cap.

Using it as a generator (e.g. behind a RAG pipeline)::

    from labsupport.decoder import Engine, ModelRunner, SchedulerConfig
    eng = Engine(ModelRunner(), SchedulerConfig(max_seqs=8, kv_budget_tokens=4096))
    a = eng.add([5, 17, 42], max_new_tokens=20)      # token ids in, a DecodeSequence back
    b = eng.add([7, 7], max_new_tokens=5)
    while eng.has_work():
        for seq in eng.step():                      # sequences finished in this step
            print(seq.id, seq.output)               # generated token ids
    # or: eng.run(requests, on_finish=callback)     # replay timed arrivals

``Engine.add`` raises ``RequestTooLong`` (a ValueError) for a request that can never fit
the KV budget. ``Engine.steps`` keeps one ``StepRecord`` per step (who sat in which place,
tokens fed, KV blocks used). ``realrun.run_requests(requests, model, **knobs)`` and
``stepsim.simulate_steps(requests, **knobs)`` replay a list of ``labsupport.traffic.Request`` on
the real model or on the step-cost model, with the same knobs. The scheduler and KV manager
import no torch.
"""
from .engine import Engine, EngineResult, StepRecord
from .kvcache import BlockManager, KVBudgetExceeded
from .scheduler import RequestTooLong, Scheduler, SchedulerConfig, StepPlan
from .sequence import DecodeSequence, Status


def __getattr__(name):  # torch-backed pieces load lazily, keeping the scheduler torch-free
    if name in ("ModelRunner", "tiny_gpt2", "load_decoder"):
        from . import runner
        return getattr(runner, name)
    raise AttributeError(f"module 'labsupport.decoder' has no attribute {name!r}")
