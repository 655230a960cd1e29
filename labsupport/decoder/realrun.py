"""The engine on the real model: ``run_requests`` replays timed requests through a fresh
``Engine`` over a ``ModelRunner`` (the call shape of ``stepsim.simulate_steps``), and
``measure_decode_ms`` times a pure decode step by batch size (notebook 05's roofline beside
its measurement). Built here, above the runner and the engine, so neither imports the
other."""
from __future__ import annotations

import numpy as np

from .engine import Engine
from .runner import ModelRunner
from .scheduler import SchedulerConfig
from .workload import uniform_requests


def run_requests(requests, model=None, *, clock: str = "wall", device=None,
                 max_new_tokens: int | None = None, eos_token_id: int | None = None, **knobs):
    """Replay ``requests`` (``payload`` = prompt token ids, ``output_len``, ``arrival`` ms)
    through a fresh ``Engine`` on the real model; the same call shape as
    ``stepsim.simulate_steps``, so one experiment runs on either. Each request's cap is
    ``max_new_tokens`` (None: its ``output_len``); ``eos_token_id`` ends an answer where
    the model produces it."""
    eng = Engine(ModelRunner(model, device=device), SchedulerConfig(**knobs), clock=clock)
    return eng.run([(r.payload, r.output_len if max_new_tokens is None else max_new_tokens,
                     r.arrival, r.id, eos_token_id) for r in requests])


def measure_decode_ms(model, batches, context: int = 32, new_tokens: int = 8,
                      device=None) -> dict[int, float]:
    """Median ms of a pure decode step of the real runner at each batch size (every row at
    ``context`` tokens; CPU time of the thread on a CPU, wall time on a GPU)."""
    out = {}
    for b in batches:
        runner = ModelRunner(model, device=device)
        clock = "wall" if runner.device.type == "cuda" else "cpu"
        eng = Engine(runner, max_seqs=b, max_tokens_per_step=b * context,
                     kv_budget_tokens=b * (context + new_tokens + 16), clock=clock)
        res = eng.run(uniform_requests(b, context, new_tokens,
                                       vocab_size=model.config.vocab_size))
        decode = [st.ms for st in res.steps if st.tokens == st.seqs == b]
        out[b] = float(np.median(decode[1:] or decode))
    return out
