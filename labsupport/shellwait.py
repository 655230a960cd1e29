"""Waiting for a kernel's reply in short polls (nbclient issue 312).

nbclient waits for a cell's reply with one poll of the shell socket as long as the cell
timeout. That poll sometimes misses the reply's wake-up and sleeps out the whole timeout
before it finds the reply waiting: notebook 06, run headless on a busy 2-core machine, took
200 s instead of 17 s one run in three. A new poll sees a waiting reply at once, so waiting
in slices of ``POLL_SLICE_S`` costs at most one slice per missed wake-up. ``SlicedWait``
puts it into any nbclient client: the headless runner (``benches.notebooks.notebook_client``)
and the grading executor (``grading.execute.AutogradeExecute``) both wait this way.
"""
from __future__ import annotations

import time
from queue import Empty

POLL_SLICE_S = 1.0  # how long one wait for a cell's reply may oversleep a missed wake-up (s)


def sliced_shell_wait(kc) -> None:
    """Make the kernel client ``kc`` (an async jupyter_client client) wait for a shell reply
    in polls of at most ``POLL_SLICE_S``; a ``timeout`` (s) still raises ``Empty`` once spent,
    and ``timeout=None`` still waits for ever."""
    channel = kc.shell_channel
    whole = channel.get_msg

    async def get_msg(timeout: float | None = None):
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if end is None else max(0.0, end - time.monotonic())
            try:
                return await whole(timeout=POLL_SLICE_S if left is None else min(POLL_SLICE_S, left))
            except Empty:
                if left is not None and left <= POLL_SLICE_S:
                    raise
    channel.get_msg = get_msg


class SlicedWait:
    """Mixin for an nbclient ``NotebookClient`` (nbgrader's ``Execute`` included), listed
    before it: its kernel client waits in slices (``sliced_shell_wait``)."""

    async def async_start_new_kernel_client(self):
        kc = await super().async_start_new_kernel_client()
        sliced_shell_wait(kc)
        return kc
