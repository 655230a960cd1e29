"""Virtual-clock tools: the discrete-event ``simulate``, an asyncio ``vclock`` loop, and
scripted ``scenarios`` that probe a batcher."""
from .simulator import SimResult, simulate

__all__ = ["SimResult", "simulate"]
