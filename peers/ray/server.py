"""The Ray Serve peer of ``labsupport bench peers``: the lab's toy model (sleep a + b·n, in
a worker thread like the lab's runtime) behind ``@serve.batch``, on ``POST /embed``.
Tuned as Ray's docs recommend for throughput: ``max_ongoing_requests`` at least two
batches deep (≥ ``max_batch_size``, else batches never fill; ``--max-ongoing``: the bench
passes the most requests it keeps in flight), ``batch_wait_timeout_s`` from
``--max-delay-ms`` (the bench passes the window every system gets, 5 ms),
``RAY_SERVE_THROUGHPUT_OPTIMIZED=1``, no access log, one replica (one executor, as every
system here).

Run with the Ray venv's python (``make peers`` → ``.peers/ray``, from ``requirements.txt``
beside this file) and ``PYTHONPATH`` at the repository (it imports ``labsupport.costs``,
``labsupport.batching.config`` and ``labsupport.serving.ops.procs``: stdlib + numpy)::

    PYTHONPATH=. .peers/ray/bin/python peers/ray/server.py --port 8123 --max-batch 32

Writes ``READY <port>`` to ``--ready-file`` (and prints it) once it answers; SIGTERM, or
the end of ``--parent-pid``, stops Serve, then Ray.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys

from labsupport.batching.config import BatchConfig
from labsupport.costs import ServiceModel, fake_model
from labsupport.serving.net import HOST
from labsupport.serving.ops import procs
from labsupport.serving.ops.exporter import ray_max_ongoing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--max-batch", type=int, default=BatchConfig.max_batch, help="@serve.batch max_batch_size")
    ap.add_argument("--max-delay-ms", type=float, default=BatchConfig.max_delay_ms,
                    help="@serve.batch batch_wait_timeout_s, in ms")
    ap.add_argument("--fixed-ms", type=float, default=ServiceModel.fixed_ms)
    ap.add_argument("--per-item-ms", type=float, default=ServiceModel.per_item_ms)
    ap.add_argument("--max-ongoing", type=int, default=0,
                    help="max_ongoing_requests (0: two batches, ray_max_ongoing)")
    ap.add_argument("--cpus", type=int, default=2, help="ray.init num_cpus")
    ap.add_argument("--ready-file", help="write READY <port> here once it answers")
    ap.add_argument("--parent-pid", type=int, help="stop when this process exits")
    a = ap.parse_args(argv)

    # Ray's high-throughput mode (Ray >= 2.55 docs): user code on the replica's own loop,
    # buffered request-path logs. Its other half, the HAProxy ingress, binds every
    # interface: not here (the lab serves 127.0.0.1 only). Set before Ray starts its
    # processes: they inherit this environment.
    os.environ.setdefault("RAY_SERVE_THROUGHPUT_OPTIMIZED", "1")
    import ray
    from ray import serve

    model = fake_model(ServiceModel(a.fixed_ms, a.per_item_ms), spin_ms=0.2)

    @serve.deployment(max_ongoing_requests=a.max_ongoing or ray_max_ongoing(a.max_batch),
                      num_replicas=1,
                      ray_actor_options={"num_cpus": 0},
                      logging_config={"enable_access_log": False})
    class Toy:
        @serve.batch(max_batch_size=a.max_batch, batch_wait_timeout_s=a.max_delay_ms / 1000)
        async def run(self, items: list) -> list:
            return await asyncio.to_thread(model, items)  # compute off the loop, as the lab

        async def __call__(self, request) -> dict:
            body = await request.json()
            return {"output": await self.run(body["input"])}

    ray.init(num_cpus=a.cpus, include_dashboard=False, log_to_driver=False,
             _node_ip_address=HOST, configure_logging=False)
    serve.start(http_options={"host": HOST, "port": a.port})
    serve.run(Toy.bind(), route_prefix="/embed", blocking=False)
    stop = procs.stop_event(a.parent_pid)  # after ray.init: ours replace Ray's signal handlers
    print(f"READY {a.port}", flush=True)
    procs.write_ready(a.ready_file, f"READY {a.port}")
    stop.wait()
    serve.shutdown()
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
