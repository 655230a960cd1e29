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


# With pytest-xdist (`make test`: two workers, ``--dist loadgroup``) a group runs in one
# worker, in order: the tests that run the real grader run one at a time (parallel grading
# jobs share the job slots' grading uids and their process limits; the hub test changes the
# clone's permissions), and the two tests of one solution notebook share its one run
# (tests/notebook/test_solutions.py).
GRADER_TESTS = tuple(f"tests/grading/test_{name}.py" for name in (
    "audit", "autograde_jobs", "autograde_mode", "cli", "formgrader", "hostile", "roundtrip",
    "sandbox", "sandbox_attacks")) + ("tests/hub/", "tests/decoder/test_grading_decode.py")


def _xdist_group(item) -> str | None:
    path = item.nodeid.replace("\\", "/")
    if path.startswith(GRADER_TESTS):
        return "grader"
    if path.startswith("tests/notebook/test_solutions.py"):
        return "solution-" + item.callspec.params["name"]
    return None


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
    for item in items:
        group = _xdist_group(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
