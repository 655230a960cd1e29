"""Request-level batching: the knobs (``config``), the policies that decide (``policies``),
shapes and padding (``shapes``), offline batch plans (``plans``), the asyncio
``MicroBatcher`` (``runtime``) and the lesson's naive sample (``lesson``)."""
