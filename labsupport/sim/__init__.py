"""Virtual-clock tools: the discrete-event ``simulate`` (one executor) and
``simulate_replicas`` (several behind a router) on one event loop, the records they return
(``SimResult``), an asyncio ``vclock`` loop, and scripted ``scenarios`` that probe a batcher."""
from .records import SimResult
from .simulator import simulate, simulate_replicas

__all__ = ["SimResult", "simulate", "simulate_replicas"]
