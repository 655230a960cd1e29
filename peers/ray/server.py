"""The Ray Serve peer of ``labsupport bench peers``: the lab's toy model (sleep a + b·n, in
a worker thread like the lab's runtime) behind ``@serve.batch``, on ``POST /embed``.
Tuned as Ray's docs recommend for throughput: ``max_ongoing_requests`` at least two
batches deep (≥ ``max_batch_size``, else batches never fill; ``--max-ongoing``: the bench
passes the most requests it keeps in flight), ``batch_wait_timeout_s`` the window the lab's
knobs give a peer (``exporter.peer_window_us``: ``--max-delay-ms`` under a policy that waits,
0 under one that does not, as ``export`` writes it),
``RAY_SERVE_THROUGHPUT_OPTIMIZED=1``, no access log, one replica (one executor, as every
system here).

Run with the Ray venv's python (``make peers`` → ``.peers/ray``, from ``requirements.txt``
beside this file) and ``PYTHONPATH`` at the repository (it imports ``labsupport.costs``,
``labsupport.batching.config``, ``labsupport.serving.ops.exporter`` and
``labsupport.serving.ops.procs``: stdlib + numpy). Its flags are the lab's knobs
(``add_arguments``) and the toy model's cost (``add_cost_arguments``), as the bench
passes them::

    PYTHONPATH=. .peers/ray/bin/python peers/ray/server.py --port 8123 --max-batch 32

Writes ``READY <port>`` to ``--ready-file`` (and prints it) once it answers; SIGTERM, or
the end of ``--parent-pid``, stops Serve, then Ray.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys

from labsupport.batching.config import add_arguments, from_arguments
from labsupport.costs import add_cost_arguments, cost_from_arguments, fake_model
from labsupport.serving.net import HOST
from labsupport.serving.ops import procs
from labsupport.serving.ops.exporter import peer_window_us, ray_max_ongoing


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, required=True)
    add_arguments(ap)  # the lab's knobs: max_batch_size and the window come from them
    add_cost_arguments(ap)  # the toy model
    ap.add_argument("--max-ongoing", type=int, default=0,
                    help="max_ongoing_requests (0: two batches, ray_max_ongoing)")
    ap.add_argument("--cpus", type=int, default=2, help="ray.init num_cpus")
    ap.add_argument("--ready-file", help="write READY <port> here once it answers")
    ap.add_argument("--parent-pid", type=int, help="stop when this process exits")
    return ap


def main(argv: list[str] | None = None) -> int:
    a = parser().parse_args(argv)
    cfg = from_arguments(a)

    # Ray's high-throughput mode (Ray >= 2.55 docs): user code on the replica's own loop,
    # buffered request-path logs. Its other half, the HAProxy ingress, binds every
    # interface: not here (the lab serves 127.0.0.1 only). Set before Ray starts its
    # processes: they inherit this environment.
    os.environ.setdefault("RAY_SERVE_THROUGHPUT_OPTIMIZED", "1")
    import ray
    from ray import serve

    model = fake_model(cost_from_arguments(a))

    @serve.deployment(max_ongoing_requests=a.max_ongoing or ray_max_ongoing(cfg.max_batch),
                      num_replicas=1,
                      ray_actor_options={"num_cpus": 0},
                      logging_config={"enable_access_log": False})
    class Toy:
        @serve.batch(max_batch_size=cfg.max_batch,
                     batch_wait_timeout_s=peer_window_us(cfg) / 1e6)
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
