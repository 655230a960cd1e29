"""The lab's embedding service as a **Ray Serve** deployment: the path for when a class or a
demo outgrows one machine. Each Ray replica runs the lab's whole service (``make_app``: the
``MicroBatcher``, OpenAI ``/v1/embeddings``, TEI and lab ``/embed``, ``/stats``); Ray's proxy
routes between replicas (power of two choices, like ``--routing p2c``) and places them on a
Ray cluster, one machine or many. A fixed ``num_replicas``, or an ``autoscaling_config``.

Run it with the Ray venv's python (``make peers`` → ``.peers/ray``, from
``requirements.txt`` beside this file), the repository on ``PYTHONPATH``; the default
model is the lab's toy ``FakeEncoder`` (no download)::

    PYTHONPATH=. .peers/ray/bin/python peers/ray/deploy.py --replicas 2 --port 8010
    PYTHONPATH=. .peers/ray/bin/python peers/ray/deploy.py --autoscale 1:4

It prints ``READY <port> <n> replicas`` (and writes it to ``--ready-file``) once every
replica answers; SIGTERM, Ctrl-C or the end of ``--parent-pid`` shuts Serve, then Ray, down. The batching knobs travel as Ray's ``user_config``: a
redeploy with new knobs reconfigures every replica in place (a ``POST /config`` through
Ray's proxy would reach only one). Nothing but ``ray_main`` imports Ray.
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field, replace

from labsupport.batching.config import BatchConfig, add_arguments, from_arguments
from labsupport.costs import ServiceModel
from labsupport.serving.api.encoders import FakeEncoder
from labsupport.serving.api.service import EmbeddingService
from labsupport.serving.net import HOST
from labsupport.serving.ops import procs
from labsupport.serving.ops.exporter import ray_max_ongoing
from labsupport.validate import check_float, check_int

REPLICA_HEADER = "x-lab-replica"  # each answer names the replica (its pid) that served it


@dataclass
class RayDeployConfig:
    """How many replicas, the knobs each replica's batcher runs (``batch``: the lab's
    ``BatchConfig``, its defaults included) and the toy model (``model``)."""
    replicas: int = 2             # fixed num_replicas (ignored when autoscale_max > 0)
    autoscale_min: int = 1        # autoscaling: fewest replicas kept
    autoscale_max: int = 0        # autoscaling: most replicas; 0 = fixed num_replicas
    target_ongoing: float = 32.0  # requests in flight per replica the autoscaler aims for (~1 full batch)
    batch: BatchConfig = field(default_factory=BatchConfig)
    model: ServiceModel = field(default_factory=ServiceModel)  # each replica's FakeEncoder
    num_cpus: float = 0.0         # Ray CPUs reserved per replica (0: pack any number on 2 cores)

    def __post_init__(self):
        check_int("replicas", self.replicas, 1, 64)
        check_int("autoscale_max", self.autoscale_max, 0, 64)
        if self.autoscale_max:
            check_int("autoscale_min", self.autoscale_min, 0, self.autoscale_max)
        check_float("target_ongoing", self.target_ongoing, 0.0, 10_000.0, lo_open=True)
        check_float("num_cpus", self.num_cpus, 0.0, 256.0)


def deployment_options(cfg: RayDeployConfig) -> dict:
    """``serve.deployment(**options)`` for ``cfg``: ``num_replicas`` or an autoscaling
    config; ``max_ongoing_requests`` ≥ 2 × max_batch (Ray's default of 5 would cap every
    replica's batches at 5 texts)."""
    opts: dict = {"max_ongoing_requests": ray_max_ongoing(cfg.batch.max_batch),
                  "ray_actor_options": {"num_cpus": cfg.num_cpus},
                  "user_config": cfg.batch.to_dict(), "health_check_period_s": 2}
    if cfg.autoscale_max:
        opts["autoscaling_config"] = {
            "min_replicas": cfg.autoscale_min, "max_replicas": cfg.autoscale_max,
            "target_ongoing_requests": cfg.target_ongoing,
            "upscale_delay_s": 3, "downscale_delay_s": 60}  # grow fast, shrink slowly
    else:
        opts["num_replicas"] = cfg.replicas
    return opts


class LabReplica:
    """One Ray replica: the lab's ``EmbeddingService`` and FastAPI app (built in the replica
    by ``__serve_build_asgi_app__``); ``reconfigure`` takes Ray's ``user_config`` (the
    ``BatchConfig`` as ``to_dict`` writes it)."""

    def __init__(self, cfg: RayDeployConfig):
        self.svc = EmbeddingService(FakeEncoder(cfg.model), replace(cfg.batch))

    async def reconfigure(self, knobs: dict) -> None:  # async: on the replica's own loop
        if knobs and knobs != self.svc.config():
            self.svc.reconfigure(knobs)

    def __serve_build_asgi_app__(self):
        from labsupport.serving.api.app import make_app
        app = make_app(self.svc)
        header = (REPLICA_HEADER.encode(), str(os.getpid()).encode())

        async def name_the_replica(scope, receive, send):  # ASGI: one header on each answer
            async def send_named(msg):
                if msg["type"] == "http.response.start":
                    msg = {**msg, "headers": [*msg.get("headers", ()), header]}
                await send(msg)
            await app(scope, receive, send_named if scope["type"] == "http" else send)
        return name_the_replica


def ray_main(cfg: RayDeployConfig, port: int, cpus: int, status_every_s: float = 0.0,
             ready_file: str | None = None, parent_pid: int | None = None) -> int:
    """Start Ray and Serve on 127.0.0.1:``port``, deploy, wait for SIGTERM/SIGINT (or the
    end of ``parent_pid``); every ``status_every_s`` (0: never) print
    ``REPLICAS <running> t=<s since READY>``."""
    import time

    import ray
    from ray import serve
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False,
             _node_ip_address=HOST, configure_logging=False)
    serve.start(http_options={"host": HOST, "port": port})
    dep = serve.deployment(name="lab", **deployment_options(cfg))(serve.ingress()(LabReplica))
    serve.run(dep.bind(cfg), name="lab", route_prefix="/")  # waits until healthy
    stop = procs.stop_event(parent_pid)  # after ray.init: ours replace Ray's signal handlers
    ready = f"READY {port} {_running(serve)} replicas {deployment_options(cfg)}"
    print(ready, flush=True)
    procs.write_ready(ready_file, ready)
    t0 = time.monotonic()
    while not stop.wait(status_every_s or None):  # None: wait for the signal only
        print(f"REPLICAS {_running(serve)} t={time.monotonic() - t0:.1f}s", flush=True)
    serve.shutdown()
    ray.shutdown()
    return 0


def _running(serve) -> int:
    states = serve.status().applications["lab"].deployments["lab"].replica_states
    return int(states.get("RUNNING", 0))


def main(argv: list[str] | None = None) -> int:
    d = RayDeployConfig()
    ap = argparse.ArgumentParser(prog="peers/ray/deploy.py",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=8010, help="Ray's HTTP proxy on 127.0.0.1")
    ap.add_argument("--replicas", type=int, default=d.replicas, help="fixed num_replicas (1-64)")
    ap.add_argument("--autoscale", metavar="MIN:MAX",
                    help="autoscaling_config between MIN and MAX replicas instead")
    ap.add_argument("--target-ongoing", type=float, default=d.target_ongoing,
                    help="autoscaling: requests in flight per replica to aim for")
    add_arguments(ap, d.batch)  # each replica's BatchConfig: --max-batch … --policy
    ap.add_argument("--fixed-ms", type=float, default=d.model.fixed_ms, help="toy model: ms per batch")
    ap.add_argument("--per-item-ms", type=float, default=d.model.per_item_ms,
                    help="toy model: ms per text")
    ap.add_argument("--cpus", type=int, default=os.cpu_count() or 2, help="ray.init num_cpus")
    ap.add_argument("--status-every", type=float, default=0.0,
                    help="print REPLICAS <running> t=<s> every this many seconds (0: never)")
    ap.add_argument("--ready-file", help="write the READY line here once every replica answers")
    ap.add_argument("--parent-pid", type=int, help="stop when this process exits")
    a = ap.parse_args(argv)
    try:
        lo, hi = (a.autoscale.split(":") if a.autoscale else ("1", "0"))
        cfg = RayDeployConfig(a.replicas, int(lo), int(hi), a.target_ongoing, from_arguments(a),
                              ServiceModel(a.fixed_ms, a.per_item_ms))
        check_int("port", a.port, 1, 65535)
    except ValueError as exc:
        msg = str(exc) if "must be" in str(exc) else f"--autoscale must be MIN:MAX, got {a.autoscale!r}"
        print(f"peers/ray/deploy.py: {msg}", file=sys.stderr)
        return 2
    return ray_main(cfg, a.port, a.cpus, check_float("status_every", a.status_every, 0.0, 3600.0),
                    a.ready_file, a.parent_pid)


if __name__ == "__main__":
    sys.exit(main())
