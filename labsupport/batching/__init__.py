"""Request-level batching: the knobs (``config``), the policies that decide (``policies``),
shapes and padding (``shapes``), offline batch plans (``plans``), the asyncio
``MicroBatcher`` (``runtime``), the lesson's naive sample (``lesson``), which replica takes a
request (``routing``), and two policies of their own: length buckets (``bucketed``) and the
SLO-aware ``adaptive`` (both imported here so that ``POLICIES`` always holds them)."""
from . import adaptive as _adaptive, bucketed as _bucketed  # noqa: F401  (register in POLICIES)

