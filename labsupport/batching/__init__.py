"""Request-level batching: the knobs (``config``), the policies that decide (``policies``),
shapes and padding (``shapes``), offline batch plans (``plans``), the asyncio
``MicroBatcher`` (``runtime``), the lesson's naive sample (``lesson``) and the SLO-aware
``adaptive`` policy (imported here so that ``POLICIES`` always holds it)."""
from . import adaptive as _adaptive  # noqa: F401  (registers "adaptive" in POLICIES)

