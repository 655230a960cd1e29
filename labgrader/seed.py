"""The grader's secret of one grading run: the hidden cases of every code exercise are drawn
from it, so no table of them exists anywhere before the run, and a student who saw last
run's cases has learnt nothing.

The seed itself never enters a box. ``grader_env()`` keeps it in the grader's own
environment (every ``--jobs`` worker inherits it: the whole run is graded on the same
cases); a process that runs student code gets ``hidden_keys`` instead: per exercise,
``guard.hidden_key(seed, ex)``, from which that exercise's hidden cases are drawn
(``guard.case_rng``). Code that reads a key learns the cases of an exercise it is handed as
inputs anyway, never the seed. The grading kernel gets them in ``LAB_HIDDEN_KEYS``
(``kernel_env``), the trusted pass in its job (``trusted.run_items``). A seed already in
``LAB_GRADER_SEED`` when grading starts is used as is (a trainer reproducing a run).
"""
from __future__ import annotations

import json
import os
import re
import secrets

from labsupport.exercises.guard import GRADER_SEED_ENV as ENV
from labsupport.exercises.guard import HIDDEN_KEYS_ENV, hidden_key


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


def notebook_exercises(nb, notebook: str) -> list[str]:
    """The exercise ids of notebook ``NN_name``'s graded cells (``exNN_k``, ``kcNN_k``: the
    conventions' names; an id of another notebook gets no key here)."""
    nn = re.escape(notebook[:2])
    ids = {str(c.metadata.get("nbgrader", {}).get("grade_id", "")).removesuffix("_test")
           for c in nb.cells}
    return sorted(i for i in ids if re.fullmatch(rf"(ex|kc){nn}_\w+", i))


def kernel_env(env: dict[str, str], exercises) -> dict[str, str]:
    """``env`` for a grading kernel: the run's seed out, the keys of ``exercises`` in."""
    out = {k: v for k, v in env.items() if k not in (ENV, HIDDEN_KEYS_ENV)}
    out[HIDDEN_KEYS_ENV] = json.dumps(hidden_keys(exercises))
    return out


def without_seed(env: dict[str, str]) -> dict[str, str]:
    """``env`` for a process that runs student code: the run's seed and keys taken out."""
    return {k: v for k, v in env.items() if k not in (ENV, HIDDEN_KEYS_ENV)}
