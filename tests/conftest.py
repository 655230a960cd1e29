"""Suite-wide settings: offline models, the venv's tools on PATH, and the markers."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# nbgrader shells out to alembic; jupyter to its kernels: the venv's bin must be on PATH.
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]

sys.path.insert(0, str(Path(__file__).resolve().parent))
from adapters import exercise_ids  # noqa: E402  (tests/ must be importable first)


# With pytest-xdist (`make test`: two workers, ``--dist loadgroup``) a test runs where a
# worker is free, except the tests of one group: they run in one worker, in order.
# - Two graders (one per worker) run side by side: each worker grades under uids of its own
#   (``$LAB_GRADING_UID_BASE``, set below; a job slot's uid is that base + slot, its judges'
#   that base + 100 + slot, and the
#   tests that pin their uids take them above it), since RLIMIT_NPROC counts per uid and a
#   test checks that no process of its uids outlived grading. Everything else a grader
#   makes is its own: temporary folders, cgroups (random names), the box's mounts.
# - Groups (``_group``): tests that share one run (the hostile class graded once; a
#   solution notebook executed once, tests/notebook/test_solutions.py), the sandbox attacks
#   (their check for leftover processes sees the whole machine), the hub (its two modules
#   each chmod this clone and restore the modes they found).
# The groups are given to xdist's scheduler by tests/xdist_groups.py (its hook, registered
# here), not as
# ``xdist_group`` marks: with pytest 9.2, xdist 3.8 ignores those marks without a word
# (pytest-xdist issue 1386), and every group was split over both workers.
UIDS_PER_WORKER = 200  # ≥ the uids one worker's tests use (job slots, their judges at +100, +80/+90 pinned)
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker.startswith("gw"):
    from labgrader.sandbox import UID_BASE_ENV, Sandbox  # noqa: E402
    os.environ[UID_BASE_ENV] = str(Sandbox().uid_base + UIDS_PER_WORKER * int(_worker[2:]))

from xdist_groups import pytest_xdist_make_scheduler  # noqa: E402,F401  (the hook)


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: notebook execution, nbgrader, browser, big models")
    config.addinivalue_line("markers", "gpu: needs CUDA (skipped without it; has a CPU twin)")
    for ex in exercise_ids():
        config.addinivalue_line("markers", f"{ex}: tests of exercise {ex}")


def pytest_collection_modifyitems(session, config, items):
    """Browser tests last: pytest-playwright keeps its session-wide sync Playwright (and its
    event loop, marked running on this thread) alive until the end, which would break every
    later test that calls ``asyncio.run`` (`make test` runs them in a pytest of their own)."""
    items.sort(key=lambda item: "tests/browser/" in item.nodeid.replace("\\", "/"))
