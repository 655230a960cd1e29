"""Kernel clients wait for a cell's reply in slices (nbclient issue 312: one long poll can
sleep out the whole cell timeout after a missed wake-up); the headless runner and the
grading executor both wait that way."""
import asyncio
import time
from queue import Empty
from types import SimpleNamespace

import pytest

from labsupport import shellwait
from labsupport.benches import notebooks
from labgrader.execute import AutogradeExecute


REPLY = {"header": {"msg_type": "execute_reply"}, "parent_header": {}, "metadata": {},
         "content": {"status": "ok"}}


class Channel:
    """A shell channel whose message is there from ``ready_at`` on, but whose poll never
    wakes up for it: only a poll that starts after ``ready_at`` sees it."""

    def __init__(self, ready_at: float):
        self.ready_at, self.polls = ready_at, []

    async def get_msg(self, timeout=None):
        self.polls.append(timeout)
        if time.monotonic() >= self.ready_at:
            return REPLY
        await asyncio.sleep(timeout)  # a missed wake-up: sleeps out its whole timeout
        raise Empty


def _wait(channel, timeout):
    kc = SimpleNamespace(shell_channel=channel)
    shellwait.sliced_shell_wait(kc)
    return asyncio.run(kc.shell_channel.get_msg(timeout=timeout))


def test_a_missed_wake_up_costs_one_slice_not_the_timeout(monkeypatch):
    monkeypatch.setattr(shellwait, "POLL_SLICE_S", 0.05)
    channel = Channel(ready_at=time.monotonic() + 0.12)
    assert _wait(channel, timeout=30) == REPLY
    assert len(channel.polls) >= 3 and max(channel.polls) <= 0.05  # never one 30 s poll


def test_no_reply_still_times_out_at_the_timeout(monkeypatch):
    monkeypatch.setattr(shellwait, "POLL_SLICE_S", 0.05)
    channel = Channel(ready_at=float("inf"))
    with pytest.raises(Empty):
        _wait(channel, timeout=0.2)
    assert max(channel.polls) <= 0.05 and sum(channel.polls) <= 0.2 + 1e-6
    assert len(channel.polls) >= 4  # it kept polling until the timeout was spent


def test_without_a_timeout_it_keeps_polling(monkeypatch):
    monkeypatch.setattr(shellwait, "POLL_SLICE_S", 0.02)
    channel = Channel(ready_at=time.monotonic() + 0.1)
    assert _wait(channel, timeout=None) == REPLY
    assert set(channel.polls) == {0.02}


@pytest.mark.parametrize("make", [
    lambda tmp: notebooks.notebook_client(None, tmp),  # tests, benches, Run All
    lambda tmp: AutogradeExecute(),                     # nbgrader autograde in the sandbox
], ids=["headless runner", "grading executor"])
def test_both_notebook_runners_wait_in_slices(make, tmp_path, monkeypatch):
    import nbclient
    channel = Channel(ready_at=time.monotonic() + 0.12)

    async def plain_client(self):
        return SimpleNamespace(shell_channel=channel, iopub_channel=Channel(float("inf")))
    monkeypatch.setattr(nbclient.NotebookClient, "async_start_new_kernel_client", plain_client)
    monkeypatch.setattr(shellwait, "POLL_SLICE_S", 0.05)

    async def wait():
        kc = await make(tmp_path).async_start_new_kernel_client()
        return await kc.shell_channel.get_msg(timeout=30)
    assert asyncio.run(wait()) == REPLY
    assert max(channel.polls) <= 0.05, "a client waits for its reply in one long poll"
