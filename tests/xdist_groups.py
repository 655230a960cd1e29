"""The suite's xdist groups (``make test``: ``-n 2 --dist loadgroup``): which tests share a
worker, handed to xdist's scheduler by ``pytest_xdist_make_scheduler`` (registered as a
hook by tests/conftest.py). A module of its own, so that tests import it by its name,
never as ``conftest`` (which is whichever conftest.py pytest imported first)."""
import pytest

GROUPS = {"tests/grading/test_hostile.py::": "hostile",
          "tests/grading/test_sandbox_attacks.py::": "sandbox-attacks",
          "tests/hub/": "hub"}
SOLUTIONS = "tests/notebook/test_solutions.py::"  # a group per notebook: test_x[<notebook>]


def _group(nodeid: str) -> str | None:
    """The group of the test ``nodeid`` (relative to the repo), or None."""
    path = nodeid.replace("\\", "/")
    for prefix, group in GROUPS.items():
        if path.startswith(prefix):
            return group
    if path.startswith(SOLUTIONS):
        return "solution-" + path.partition("[")[2].rstrip("]")
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` with the groups of ``_group``; the other tests one by one (as
    xdist does, the units with the most tests first)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class Groups(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _group(nodeid) or nodeid

    return Groups(config, log)
