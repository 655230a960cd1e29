"""The grader's secret of one grading run: the hidden cases of every code exercise are drawn
from it, so no table of them exists anywhere before the run, and a student who saw last
run's cases has learnt nothing.

The seed itself never enters a box. ``grader_env()`` keeps it in the grader's own
environment (every ``--jobs`` worker inherits it: the whole run is graded on the same
cases); a process that runs student code gets ``hidden_keys`` instead: per exercise,
``guard.hidden_key(seed, ex)``, from which that exercise's hidden cases are drawn
(``guard.case_rng``). Code that reads a key learns the cases of an exercise it is handed as
inputs anyway, never the seed. Only the trusted pass gets them, in its job
(``trusted.run_items``); the grading kernel gets none (``without_seed``: it runs the test
cells' visible part alone, ``execute.AutogradeExecute``). A seed already in
``LAB_GRADER_SEED`` when grading starts is used as is (a trainer reproducing a run).
"""
from __future__ import annotations

import os
import secrets

from labsupport.exercises.guard import GRADER_SEED_ENV as ENV
from labsupport.exercises.guard import hidden_key


def new_grader_seed() -> str:
    """A fresh secret: 128 random bits, as hex."""
    return secrets.token_hex(16)


def grader_env() -> dict[str, str]:
    """``{"LAB_GRADER_SEED": <this run's secret>}``: the grader's own environment (drawn on
    the first call and kept there). Never handed to a process that runs student code."""
    return {ENV: os.environ.setdefault(ENV, new_grader_seed())}


def hidden_keys(exercises) -> dict[str, str]:
    """exercise id -> the key of its hidden cases in this run."""
    seed = grader_env()[ENV]
    return {ex: hidden_key(seed, ex) for ex in sorted(set(exercises))}


def without_seed(env: dict[str, str]) -> dict[str, str]:
    """``env`` for a process that runs student code: the run's seed taken out."""
    return {k: v for k, v in env.items() if k != ENV}
