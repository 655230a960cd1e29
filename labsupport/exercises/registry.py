"""Every graded item of the lab, by its exercise id: the one table that says what an
exercise is.

``EXERCISES[ex]`` is an ``Exercise``: its check (``check_<ex>``, by dotted path), the name
the answer cell defines for it (``target``), the lab's own implementations of it
(``references``: what the static audit and the trusted pass's tripwire look for, via
``labgrader.references``) and the lab's own answer a demo cell runs while the exercise is
unsolved (``fallback``, defined next to its check when the package has no function of that
shape). A discussion answer (a markdown cell graded by hand) has no check, target or
fallback. The table holds names only (dotted paths), so reading it imports no check.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable

from .kc08 import FORM

_PKG = "labsupport."


@dataclass(frozen=True)
class Exercise:
    """One graded item. ``check``, ``references`` and ``fallback`` are dotted paths into
    the package; ``check`` and ``target`` are None for an answer graded by hand."""
    check: str | None
    target: str | None
    references: tuple[str, ...] = ()
    fallback: str | None = None

    @property
    def check_module(self) -> str | None:
        """The module that defines the check (``labsupport.exercises.ex02_faults``)."""
        return self.check.rsplit(".", 1)[0] if self.check else None


def _code(module: str, ex: str, target: str, references: tuple[str, ...] = (),
          fallback: str | None = None) -> Exercise:
    """An autograded exercise whose check is ``labsupport.exercises.<module>.check_<ex>``."""
    return Exercise(f"{_PKG}exercises.{module}.check_{ex}", target,
                    tuple(_PKG + r for r in references), _PKG + fallback if fallback else None)


BATCHER = ("batching.runtime.MicroBatcher", "batching.policies", "batching.bucketed",
           "batching.adaptive")
DECODER_ENGINE = ("decoder.scheduler", "decoder.engine", "decoder.stepsim", "decoder.rules")
HAND_GRADED = Exercise(None, None)

EXERCISES: dict[str, Exercise] = {
    "ex01_1": _code("ex01", "ex01_1", "utilisation", ("metrics.utilisation", "metrics.summarize",
                                                      "sim.records.SimResult.busy_before"),
                    "exercises.ex01.lab_busy_share"),
    "ex01_2": _code("ex01", "ex01_2", "latency_percentiles",
                    ("metrics.percentiles", "metrics.summarize"),
                    "exercises.ex01.lab_latency_percentiles"),
    "ex01_3": _code("ex01", "ex01_3", "md1_wait_ms", ("queueing",), "queueing.md1_wait_ms"),
    "ex02_1": _code("ex02", "ex02_1", "Batcher", BATCHER, "exercises.ex02.LabWindowBatcher"),
    "ex02_2": _code("ex02", "ex02_2", "EarlyBatcher", BATCHER, "exercises.ex02.LabEarlyBatcher"),
    "ex02_3": _code("ex02", "ex02_3", "EagerBatcher", BATCHER, "exercises.ex02.LabEagerBatcher"),
    "ex02_4": _code("ex02_faults", "ex02_4", "SafeBatcher", BATCHER,
                    "exercises.ex02.LabSafeBatcher"),
    "ex02_5": _code("ex02_faults", "ex02_5", "ThreadedBatcher", BATCHER,
                    "exercises.ex02.LabEagerBatcher"),
    "ex02_6": _code("ex02_faults", "ex02_6", "CheckedBatcher", BATCHER,
                    "exercises.ex02.LabEagerBatcher"),
    "ex02_9": _code("ex02_faults", "ex02_9", "CancelSafeBatcher", BATCHER,
                    "exercises.ex02.LabEagerBatcher"),
    "ex02_7": _code("ex02_knee", "ex02_7", "p99_vs_delay", ("exercises.ex02_knee.reference_sweep",),
                    "exercises.ex02_knee.reference_sweep"),
    "ex02_8": _code("ex02_knee", "ex02_8", "knee_delay", ("metrics.find_knee",),
                    "exercises.ex02_knee.lab_knee_delay"),
    "ex02_10": HAND_GRADED,
    "ex03_1": _code("ex03", "ex03_1", "pad_batch", ("batching.shapes.pad", "batching.shapes.Padded"),
                    "exercises.ex03.lab_pad_batch"),
    "ex03_2": _code("ex03", "ex03_2", "bucket_index",
                    ("batching.shapes.bucket_of", "batching.shapes.assign_buckets")),
    "ex03_3": _code("ex03", "ex03_3", "budget_batches", ("batching.plans.token_budget_batches",)),
    "ex03_4": _code("ex03", "ex03_4", "padding_share",
                    ("batching.plans.waste", "batching.plans.batch_padded_tokens",
                     "metrics.padding_share")),
    "ex04_1": _code("ex04", "ex04_1", "mean_pool", ("exercises.ex04._pool_ref", "encoder.model"),
                    "exercises.ex04.lab_mean_pool"),
    "ex04_2": _code("ex04", "ex04_2", "fit_costs", ("costs.ServiceModel.fit", "costs.linear_fit")),
    "ex04_3": _code("ex04", "ex04_3", "pick_knobs", (), "exercises.ex04.lab_pick_knobs"),
    "ex04_4": _code("ex04_adaptive", "ex04_4", "dispatch_at", ("batching.adaptive",)),
    "ex05_4": _code("ex05", "ex05_4", "kv_budget", ("decoder.kvmath",),
                    "exercises.ex05.lab_kv_budget"),
    "ex05_5": _code("ex05", "ex05_5", "decode_metrics", ("decoder.tokentimes", "decoder.metrics"),
                    "decoder.tokentimes.token_metrics"),
    "ex05_6": _code("ex05", "ex05_6", "crossover_batch", ("decoder.roofline",),
                    "decoder.roofline.crossover_batch"),
    "ex06_1": _code("ex06", "ex06_1", "schedule_step", DECODER_ENGINE),
    "ex06_2": _code("ex06", "ex06_2", "kv_admission", DECODER_ENGINE + ("decoder.kvcache",),
                    "decoder.rules.kv_admission"),
    "ex06_4": _code("ex06", "ex06_4", "grow_or_preempt", ("decoder.rules.grow_or_preempt",),
                    "decoder.rules.grow_or_preempt"),
    "ex06_5": _code("ex06", "ex06_5", "admit_under_budget", ("decoder.rules.admit_waiting",),
                    "decoder.rules.admit_waiting"),
    "ex06_6": _code("ex06", "ex06_6", "pick_max_seqs", ("exercises.slo_pick",),
                    "exercises.slo_pick.pick"),
    "ex06_7": _code("ex06_speedup", "ex06_7", "speedup_parts",
                    ("exercises.ex06_speedup.speedup_ref",), "exercises.ex06_speedup.speedup_ref"),
    "ex06_8": _code("ex06_blocks", "ex06_8", "BlockPool", ("decoder.blockpool", "decoder.kvcache"),
                    "decoder.blockpool.RefCountedPool"),
    "ex06_9": _code("ex06_step", "ex06_9", "ragged_mask", ("decoder.ragged",),
                    "decoder.ragged.packed_mask"),
    "ex06_10": _code("ex06_prefix", "ex06_10", "prefix_hits",  # block_hash is given to students
                     ("decoder.kvcache.cached_prefix", "decoder.kvcache.block_names"),
                     "decoder.kvcache.cached_prefix"),
    "ex09_1": _code("ex09", "ex09_1", "ChallengePolicy",  # the open challenge: any better policy
                    ("exercises.challenge.SloBuckets", "batching.bucketed", "batching.adaptive"),
                    "exercises.challenge.SloBuckets"),
    # the knowledge check: each item's answer cell sets a variable named after the item
    **{item: _code("kc08", item, item) for item in FORM},
    "kc08_25": HAND_GRADED, "kc08_26": HAND_GRADED,
}


def exercise(ex_id: str) -> Exercise:
    """``EXERCISES[ex_id]``, or a LookupError naming the known ids."""
    try:
        return EXERCISES[ex_id]
    except KeyError:
        raise LookupError(f"ex_id={ex_id!r} is no exercise of the lab: add it to "
                          f"labsupport.exercises.registry.EXERCISES (known: "
                          f"{', '.join(sorted(EXERCISES))})") from None


def _load(dotted: str) -> Any:
    module, _, name = dotted.rpartition(".")
    return getattr(import_module(module), name)


def check_of(ex_id: str) -> Callable:
    """The check function of ``ex_id`` (imports its module)."""
    ex = exercise(ex_id)
    if ex.check is None:
        raise LookupError(f"{ex_id} is graded by hand: it has no check")
    return _load(ex.check)


def lab_answer(ex_id: str) -> Any:
    """The lab's own answer to ``ex_id`` (what a demo cell runs while it is unsolved)."""
    ex = exercise(ex_id)
    if ex.fallback is None:
        raise LookupError(f"{ex_id} has no lab answer for demo cells (its Exercise.fallback)")
    return _load(ex.fallback)
