"""Notebook 09's open challenge: the traces, the baselines and the one scorer.

The problem: one encoder (the shipped MiniLM's CPU cost, ``SERVICE``) behind one batching
policy, fed a bursty trace of short texts; score = **goodput**, the requests per second
that finish within ``SLO_MS`` of arriving (over the span from the first to the last
arrival, the same for every policy). A policy's run is written down as its *schedule*, the
batches it started (``(start_ms, [request ids])``); ``score`` replays a schedule on the cost
model and checks the rules (every request exactly once, never before it arrived, at most
``MAX_BATCH`` per batch, one batch at a time). The baselines, the student's policy and
the grader all go through ``score``: the notebook's scorer is the grader's.

Traces are resampled (``resample``) from the lab's trace (``traffic.load_trace``: the Azure
conversation trace when ``../shared/data`` has it, else the shipped synthetic twin) in
blocks of consecutive requests, so its bursts survive; ``public_traces`` are fixed, the
hidden ones come from the grading run's secret (``hidden_traces(rng)``).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from ..batching.config import BatchConfig
from ..batching.policies import WAIT, Dispatch, Policy, Wait
from ..batching.shapes import DEFAULT_EDGES, bucket_of, padded_tokens
from ..costs import ServiceModel
from ..notebook.claims import SHIPPED_MINILM_CPU
from ..sim.simulator import simulate
from ..traffic import Request, Trace, load_trace
from ..validate import check_float, check_int

SERVICE: ServiceModel = SHIPPED_MINILM_CPU  # ms = 7 + 0.2 n + 0.16 × padded tokens
SLO_MS = 150.0            # the p99 latency target of the encoder service (ms)
MAX_BATCH = 32            # requests per batch, at most
MIN_TOKENS, MAX_TOKENS = 8, 64   # the encoder's input lengths (tokens)
N_REQUESTS = 1000         # requests per trace
BLOCK = 64                # consecutive requests per resampled block
RATES_RPS = (180.0, 260.0)  # mean arrival rate of a trace, drawn in this range (req/s)
HIDDEN_SEEDS = 3          # hidden traces per grading run

# the baselines a policy is scored against: name -> the lab's policy, each run with the knobs
# a challenger gets (``config()``: max_batch 32, the SLO, the lab's 5 ms max_delay_ms)
BASELINES: dict[str, str] = {
    "fifo": "naive",                # one at a time, oldest first
    "window": "window",             # the lesson's window (5 ms)
    "default": "work_conserving",   # the lab's default (Triton's with no queue delay)
    "bucketed": "bucketed",         # the lab's length buckets
    "adaptive": "adaptive",         # the lab's SLO-aware policy
}


def config() -> BatchConfig:
    """The knobs every policy of the challenge is built with."""
    return BatchConfig(max_batch=MAX_BATCH, slo_p99_ms=SLO_MS)


class RuleBroken(AssertionError):
    """A schedule that breaks the interface's rules (scores 0)."""


class SloBuckets(Policy):
    """The lab's answer to the challenge: length buckets among the requests that can still
    meet the SLO ("live": started now alone, they would finish in time); the biggest
    bucket goes, unless the oldest live request is close to its deadline (two full batches
    of its length from it), then its bucket goes. Late requests (they miss the SLO
    whatever happens) go only when no live request waits, so a burst costs the requests
    it made late, not every request after it. Work-conserving: an idle model never waits."""
    name = "slo_buckets"

    def decide(self, queue, now: float, busy: bool) -> Dispatch | Wait:
        if busy or not queue:
            return WAIT
        scan = min(len(queue), 16 * self.cfg.max_batch)
        live = [k for k in range(scan)
                if now + SERVICE.cost(1, queue[k].length) <= queue[k].arrival + SLO_MS]
        pool = live or list(range(scan))
        groups: dict[int, list[int]] = {}
        for k in pool:
            groups.setdefault(bucket_of(queue[k].length, DEFAULT_EDGES), []).append(k)
        head, mb = queue[pool[0]], self.cfg.max_batch
        if live and now + 2 * SERVICE.cost(mb, mb * head.length) >= head.arrival + SLO_MS:
            return self._fill(queue, groups[bucket_of(head.length, DEFAULT_EDGES)])
        return max((self._fill(queue, g) for g in groups.values()),
                   key=lambda d: (len(d.indices), -queue[d.indices[0]].arrival))


@dataclass(frozen=True)
class ChallengeTrace:
    """One trace of the challenge: arrivals (ms from the first) and lengths (tokens)."""
    arrival_ms: tuple[float, ...]
    length: tuple[int, ...]
    rate_rps: float
    source: str

    def head(self, n: int) -> "ChallengeTrace":
        """The first ``n`` requests."""
        return ChallengeTrace(self.arrival_ms[:n], self.length[:n], self.rate_rps, self.source)

    def requests(self) -> list[Request]:
        """Fresh ``traffic.Request`` objects (ids 0..n-1 in arrival order)."""
        return [Request(i, a, n) for i, (a, n) in enumerate(zip(self.arrival_ms, self.length))]


def resample(base: Trace, rng: np.random.Generator, n: int = N_REQUESTS,
             rate_rps: float = 130.0, block: int = BLOCK) -> ChallengeTrace:
    """``n`` requests drawn from ``base`` in blocks of ``block`` consecutive rows (their gaps
    and prompt lengths together), gaps rescaled to a mean rate of ``rate_rps`` req/s,
    prompt lengths scaled so ``base``'s 95th percentile is ``MAX_TOKENS`` and clipped to
    ``[MIN_TOKENS, MAX_TOKENS]``."""
    check_int("n", n, 2, 100_000)
    check_float("rate_rps", rate_rps, 0.0, lo_open=True)
    check_int("block", block, 2, max(2, len(base) - 1))
    gaps_all = np.diff(np.asarray(base.arrival_ms, float))
    ctx_all = np.asarray(base.context_tokens, float)
    gaps, ctx = [], []
    while len(gaps) < n:
        s = int(rng.integers(0, len(gaps_all) - block + 1))
        gaps.extend(gaps_all[s:s + block])
        ctx.extend(ctx_all[s + 1:s + 1 + block])
    g = np.asarray(gaps[:n - 1])
    g = g * (1000.0 / rate_rps) / max(float(g.mean()), 1e-9)
    t = np.concatenate([[0.0], np.cumsum(g)])
    scale = MAX_TOKENS / float(np.percentile(ctx_all, 95))
    lengths = np.clip(np.round(np.asarray(ctx[:n]) * scale), MIN_TOKENS, MAX_TOKENS).astype(int)
    return ChallengeTrace(tuple(float(x) for x in np.round(t, 6)),
                          tuple(int(x) for x in lengths), float(rate_rps), base.source)


def draw_traces(rng: np.random.Generator, k: int, base: Trace | None = None
                ) -> list[ChallengeTrace]:
    """``k`` traces, each at its own rate drawn from ``RATES_RPS``."""
    base = load_trace() if base is None else base
    return [resample(base, rng, rate_rps=float(np.round(rng.uniform(*RATES_RPS), 1)))
            for _ in range(k)]


def public_traces(base: Trace | None = None) -> list[ChallengeTrace]:
    """The trace to develop on (fixed: the same every run)."""
    return draw_traces(np.random.default_rng(zlib.crc32(b"ex09_1 public")), 1, base)


def hidden_traces(rng: np.random.Generator, base: Trace | None = None) -> list[ChallengeTrace]:
    """``HIDDEN_SEEDS`` traces from ``rng`` (the grading run's ``case_rng``)."""
    return draw_traces(rng, HIDDEN_SEEDS, base)


# ---- the one scorer --------------------------------------------------------------------

def _run_ms(trace: ChallengeTrace, ids: list[int]) -> float:
    """What one batch of ``ids`` costs on ``SERVICE`` (ms): rows padded to its longest, as
    the simulator charges the baselines (``Policy.padded_tokens``)."""
    return SERVICE.cost(len(ids), padded_tokens([trace.length[i] for i in ids]))


def _schedule_problem(trace: ChallengeTrace, batches) -> str | None:
    """Why ``batches`` breaks the rules on ``trace``, or None."""
    n, seen, free_at = len(trace.arrival_ms), np.zeros(len(trace.arrival_ms), int), -np.inf
    if type(batches) is not list:
        return "the schedule is not a list of batches"
    for b in batches:
        if type(b) is not list or len(b) != 2 or type(b[0]) is not float \
                or type(b[1]) is not list:
            return "a batch is not [start_ms, [request ids]]"
        start, ids = b
        if not ids or not all(type(i) is int and 0 <= i < n for i in ids):
            return f"a batch at {start:.1f} ms holds no request or an unknown one"
        if len(ids) > MAX_BATCH:
            return f"a batch of {len(ids)} requests at {start:.1f} ms (max_batch is {MAX_BATCH})"
        if len(set(ids)) != len(ids):
            return f"the batch at {start:.1f} ms holds one request twice"
        first = max(trace.arrival_ms[i] for i in ids)
        if not start >= first:
            return f"a batch started at {start:.1f} ms with a request that arrives at {first:.1f} ms"
        if start < free_at - 1e-6:
            return f"a batch started at {start:.1f} ms while the model ran until {free_at:.1f} ms"
        free_at = start + _run_ms(trace, ids)
        seen[ids] += 1
    if (seen > 1).any():
        return f"request {int(np.argmax(seen > 1))} was sent in two batches (duplicated)"
    if (seen == 0).any():
        return (f"{int((seen == 0).sum())} requests were never sent (dropped), the first "
                f"request {int(np.argmax(seen == 0))}")
    return None


def score(trace: ChallengeTrace, batches) -> dict:
    """Replay ``batches`` (``[[start_ms, [ids]], …]``) on ``SERVICE``: goodput and where it
    was lost. ``RuleBroken`` names the first rule broken."""
    why = _schedule_problem(trace, batches)
    if why is not None:
        raise RuleBroken(why)
    a, lengths = np.asarray(trace.arrival_ms), np.asarray(trace.length)
    start, finish, size = np.zeros(len(a)), np.zeros(len(a)), np.zeros(len(a))
    padded = real = 0
    for s, ids in batches:
        end = s + _run_ms(trace, ids)
        start[ids], finish[ids], size[ids] = s, end, len(ids)
        padded += padded_tokens([trace.length[i] for i in ids])
        real += int(lengths[ids].sum())
    lat, wait = finish - a, start - a
    met = lat <= SLO_MS
    span_s = (a[-1] - a[0]) / 1000.0
    miss = ~met
    return {"goodput_rps": float(met.sum() / span_s), "met_share": float(met.mean()),
            "requests": int(len(a)),
            "missed": int(miss.sum()), "p99_ms": float(np.percentile(lat, 99)),
            "wait_ms": float(wait.mean()),
            "missed_wait_ms": float(wait[miss].mean()) if miss.any() else 0.0,
            "missed_run_ms": float((finish - start)[miss].mean()) if miss.any() else 0.0,
            "mean_batch": float(len(a) / len(batches)),
            "padding_share": float(1.0 - real / padded) if padded else 0.0,
            "rate_rps": trace.rate_rps}


def schedule_of(res) -> list:
    """A simulator run (``sim.records.SimResult``) as a schedule: its batches in order."""
    out = []
    for b in range(len(res.batch_start)):
        ids = np.flatnonzero(res.batch_of == b)
        out.append([float(res.batch_start[b]), [int(i) for i in ids]])
    return out


def baseline_scores(trace: ChallengeTrace) -> dict[str, dict]:
    """Each baseline's ``score`` on ``trace`` (the lab's own policies, in the simulator)."""
    out = {}
    for name, policy in BASELINES.items():
        res = simulate(trace.requests(), policy, SERVICE, cfg=config())
        out[name] = score(trace, schedule_of(res))
    return out
