"""Request-level batching: the knobs (``config``), the policies that decide (``policies``,
length buckets in ``bucketed``, the SLO-aware ``adaptive``; every one by name in
``registry``), shapes and padding (``shapes``), offline batch plans (``plans``), the asyncio
``MicroBatcher`` (``runtime``), the lesson's naive sample (``lesson``) and which replica
takes a request (``routing``). Importing the package imports nothing."""
