"""The NVIDIA PyTriton peer of ``labsupport bench peers``: the lab's toy model (sleep
a + b·n) bound to Triton with its dynamic batcher, on Triton's HTTP
``POST /v2/models/toy/infer`` (KServe v2). Tuned as Triton's docs recommend for
throughput: the dynamic batcher with ``max_queue_delay_microseconds`` the window the lab's
knobs give a peer (``exporter.peer_window_us``: ``--max-delay-ms`` under a policy that waits, 0
under one that does not, as ``export`` writes it; measured here a 5 ms window did no worse
than Triton's default of 0: ~1300 vs ~1060 req/s with 128 in flight, within the noise of a
shared box), no preferred batch sizes ("for most models
preferred_batch_size should not be specified"), one model instance (the toy model is one
executor, as in every system here; a second instance would double the simulated
hardware).

Run with the PyTriton venv's python (``make peers`` → ``.peers/pytriton``, from
``requirements.txt`` beside this file; it pins numpy < 2) and ``PYTHONPATH`` at the
repository (it imports ``labsupport.costs``, ``labsupport.batching.config``,
``labsupport.serving.ops.exporter`` and ``labsupport.serving.ops.procs``). Its flags are the
lab's knobs (``add_arguments``) and the toy model's cost (``add_cost_arguments``).
On a CPU-only machine Triton's Python backend stub needs ``LD_LIBRARY_PATH`` set to
Python's ``sysconfig`` LIBDIR (else ``'_thread.RLock' object has no attribute
'_recursion_count'``)::

    LD_LIBRARY_PATH=$(python -c 'import sysconfig;print(sysconfig.get_config_var("LIBDIR"))') \\
    PYTHONPATH=. .peers/pytriton/bin/python peers/pytriton/server.py --port 8124

Writes ``READY <port>`` to ``--ready-file`` (and prints it) once it serves; SIGTERM, or
the end of ``--parent-pid``, stops Triton.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from labsupport.batching.config import add_arguments, from_arguments
from labsupport.costs import add_cost_arguments, cost_from_arguments, fake_model
from labsupport.serving.net import HOST
from labsupport.serving.ops import procs
from labsupport.serving.ops.exporter import peer_window_us


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, required=True)
    add_arguments(ap)  # the lab's knobs: max_batch_size and the window come from them
    add_cost_arguments(ap)  # the toy model
    ap.add_argument("--preferred", default="", help="preferred batch sizes, comma-separated "
                    "(default: none, as Triton's docs advise for most models: batches as "
                    "large as the queue allows)")
    ap.add_argument("--ready-file", help="write READY <port> here once it serves")
    ap.add_argument("--parent-pid", type=int, help="stop when this process exits")
    return ap


def main(argv: list[str] | None = None) -> int:
    a = parser().parse_args(argv)
    cfg = from_arguments(a)

    from pytriton.decorators import batch
    from pytriton.model_config import DynamicBatcher, ModelConfig, Tensor
    from pytriton.triton import Triton, TritonConfig

    model = fake_model(cost_from_arguments(a))
    preferred = [int(x) for x in a.preferred.split(",")] if a.preferred else None

    @batch
    def infer(x: np.ndarray):
        model(list(x))  # the toy model's time for len(x) items
        return {"y": x}

    cfg = TritonConfig(http_address=HOST, http_port=a.port, allow_grpc=False,
                       allow_metrics=False, exit_on_error=True)
    with Triton(config=cfg) as triton:
        triton.bind(model_name="toy", infer_func=infer,
                    inputs=[Tensor(name="x", dtype=np.float32, shape=(1,))],
                    outputs=[Tensor(name="y", dtype=np.float32, shape=(1,))],
                    config=ModelConfig(max_batch_size=cfg.max_batch, batcher=DynamicBatcher(
                        max_queue_delay_microseconds=peer_window_us(cfg),
                        preferred_batch_size=preferred)))
        triton.run()  # serves in the background; readiness checked by run()
        stop = procs.stop_event(a.parent_pid)
        print(f"READY {a.port}", flush=True)
        procs.write_ready(a.ready_file, f"READY {a.port}")
        stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
