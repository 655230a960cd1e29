"""What the grader accepts from a submission's kernel, message by message: code in the
kernel can write on the kernel's own sockets, so a message that is not a Jupyter message,
has malformed content, or is one the protocol sends once (a reply, an ``idle``) sent again
is a ``KernelMessageError``; ``execute.AutogradeExecute`` then stops that kernel and flags
the submission, and the judge still grades every answer.
"""
from __future__ import annotations

from queue import Empty

import zmq


class KernelMessageError(RuntimeError):
    """The submission's kernel sent a message the grader cannot use: not a Jupyter message,
    malformed content, or one the protocol never sends twice (a second reply or ``idle`` for
    one request: a forged one). Code in the kernel can write on its sockets, so this is the
    submission's doing, never the grader's: the cell's outputs are dropped and the kernel
    stopped."""


REPLY_STATUS = ("ok", "error", "aborted")


class MessageCheck:
    """What the grader accepts from a kernel, message by message (``check``); remembers which
    requests were answered (their reply, their ``idle``) and in which cell (``cell``)."""

    def __init__(self) -> None:
        self.cell: int | None = None  # index of the cell running now
        self._ended: dict[tuple[str, str], int | None] = {}  # (what, request id) -> its cell

    def check(self, channel: str, msg) -> None:
        """``KernelMessageError`` unless ``msg`` (read on ``channel``) is usable."""
        for part in ("header", "parent_header", "content", "metadata"):
            if not isinstance(msg.get(part), dict):
                raise KernelMessageError(f"a message on {channel} whose {part} is not a JSON object")
        kind, content = msg["header"].get("msg_type"), msg["content"]
        count = content.get("execution_count")
        if count is not None and type(count) is not int:
            raise KernelMessageError(f"a {kind!r} message whose execution_count is {count!r:.40}")
        if channel == "shell" and kind == "execute_reply":
            if content.get("status") not in REPLY_STATUS:
                raise KernelMessageError(f"an execute_reply whose status is {content.get('status')!r:.40}")
            tb = content.get("traceback")
            if content["status"] == "error" and not (
                    isinstance(content.get("ename"), str) and isinstance(content.get("evalue"), str)
                    and isinstance(tb, list) and all(isinstance(line, str) for line in tb)):
                raise KernelMessageError("an execute_reply 'error' without its error's name, "
                                         "value and traceback")
            self._once("execute_reply", msg)
        elif channel == "iopub" and kind == "status" and content.get("execution_state") == "idle":
            self._once("'idle' status", msg)

    def replied(self, cell: int) -> bool:
        """Whether the kernel itself sent a reply while cell ``cell`` ran."""
        return any(what == "execute_reply" and at == cell for (what, _), at in self._ended.items())

    def _once(self, what: str, msg: dict) -> None:
        request = msg["parent_header"].get("msg_id")
        if not isinstance(request, str):
            return  # of no request: nobody waits for it
        if (what, request) in self._ended:
            cell = self._ended[(what, request)]
            of = f"cell {cell + 1}'s request" if cell is not None else "one request"
            raise KernelMessageError(f"a second {what} for {of} (a forged message)")
        self._ended[(what, request)] = self.cell


def check_channels(kc, check: MessageCheck) -> None:
    """Make the kernel client ``kc`` read its iopub and shell channels through ``check``: a
    message that cannot be deserialized or fails the check raises ``KernelMessageError``
    (``Empty`` and socket errors pass as they are)."""
    for name in ("iopub", "shell"):
        channel = getattr(kc, f"{name}_channel")

        async def get_msg(timeout=None, _read=channel.get_msg, _name=name):
            try:
                msg = await _read(timeout=timeout)
            except (Empty, zmq.ZMQError):
                raise
            except Exception as exc:  # noqa: BLE001 - whatever the kernel sent, it cannot be read
                raise KernelMessageError(f"a message on {_name} that is not a Jupyter message "
                                         f"({type(exc).__name__}: {str(exc)[:160]})") from exc
            check.check(_name, msg)
            return msg
        channel.get_msg = get_msg
