"""The grader's secret of one grading run: the hidden cases of every code exercise are drawn
from it (``labsupport.exercises.guard.case_rng``), so no table of them exists anywhere
before the run, and a student who saw last run's cases has learnt nothing.

``grader_env()`` is what the grading kernel and the trusted pass get in their environment
(``AutogradeExecute``, ``trusted.run_items``); nothing else needs it. One seed per grading
process: the first call draws it and keeps it in this process's environment, so every
submission of the run (and every ``--jobs`` worker, which inherits the environment) is
graded on the same cases. A seed already in ``LAB_GRADER_SEED`` when grading starts is
used as is (a trainer reproducing a run).
"""
from __future__ import annotations

import os
import secrets

from labsupport.exercises.guard import GRADER_SEED_ENV as ENV


def new_grader_seed() -> str:
    """A fresh secret: 128 random bits, as hex."""
    return secrets.token_hex(16)


def grader_env() -> dict[str, str]:
    """``{"LAB_GRADER_SEED": <this run's secret>}`` for a grading process's environment."""
    return {ENV: os.environ.setdefault(ENV, new_grader_seed())}
