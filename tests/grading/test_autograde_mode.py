"""What runs short in autograde mode (``LAB_AUTOGRADE=1``, ``labsupport.autograde_mode()``)."""
import asyncio

import numpy as np

from labsupport.sim import scenarios
from labsupport.traffic import Request


def _replay(n_requests: int, gap_ms: float) -> np.ndarray:
    reqs = [Request(id=k, arrival=k * gap_ms) for k in range(n_requests)]

    async def submit(item):
        return item

    arrival, finish = asyncio.run(scenarios.open_loop(submit, reqs, lambda r: r.id))
    assert not np.isnan(finish).any()
    return arrival


def test_open_loop_replays_only_the_first_span_when_autograding(monkeypatch):
    monkeypatch.setenv("LAB_AUTOGRADE", "1")
    span, least = scenarios.AUTOGRADE_SPAN_MS, scenarios.AUTOGRADE_MIN_REQUESTS
    assert len(_replay(40, span / 10)) == 11          # arrivals 0 … span inclusive
    assert len(_replay(8, span)) == least             # sparse traffic: still a few requests


def test_open_loop_replays_everything_otherwise(monkeypatch):
    monkeypatch.setenv("LAB_AUTOGRADE", "0")
    assert len(_replay(14, scenarios.AUTOGRADE_SPAN_MS / 10)) == 14  # past the span
