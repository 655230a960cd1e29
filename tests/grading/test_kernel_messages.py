"""What the grading executor accepts from a submission's kernel (``kernel_messages.MessageCheck``,
``kernel_messages.check_channels``): code in the kernel can write on the kernel's own sockets, so a
message that is not a Jupyter message, has malformed content, or repeats a reply or an
``idle`` the protocol sends once is a ``KernelMessageError`` (the executor then stops that
kernel; ``tests/grading/hostile/kernel/`` grades such submissions end to end)."""
import asyncio
from pathlib import Path
from queue import Empty

import pytest
from jupyter_client.manager import start_new_async_kernel

from labgrader.kernel_messages import KernelMessageError, MessageCheck, check_channels


def _msg(kind: str, content, request: str | None = "req-1", **parts) -> dict:
    return {"header": {"msg_type": kind, "msg_id": "m"}, "msg_type": kind,
            "parent_header": {"msg_id": request} if request else {}, "content": content,
            "metadata": {}, **parts}


OK_REPLY = {"status": "ok", "execution_count": 3, "user_expressions": {}, "payload": []}
ERROR_REPLY = {"status": "error", "ename": "AssertionError", "evalue": "wrong",
               "traceback": ["AssertionError: wrong"]}


def test_a_kernel_that_keeps_the_protocol_passes():
    check = MessageCheck()
    for request, reply in (("req-1", OK_REPLY), ("req-2", ERROR_REPLY)):
        check.cell = int(request[-1])
        check.check("iopub", _msg("status", {"execution_state": "busy"}, request))
        check.check("iopub", _msg("stream", {"name": "stdout", "text": "hi\n"}, request))
        check.check("iopub", _msg("status", {"execution_state": "idle"}, request))
        check.check("shell", _msg("execute_reply", reply, request))
    check.check("iopub", _msg("status", {"execution_state": "idle"}, None))  # of no request
    check.check("iopub", _msg("status", {"execution_state": "idle"}, None))


@pytest.mark.parametrize("channel,message,why", [
    ("iopub", _msg("stream", ["not", "an", "object"]), "content is not a JSON object"),
    ("iopub", _msg("stream", {"name": "stdout", "text": "x"}, parent_header=[1]),
     "parent_header is not a JSON object"),
    ("iopub", _msg("execute_result", {"execution_count": "9", "data": {}, "metadata": {}}),
     "execution_count is '9'"),
    ("shell", _msg("execute_reply", {}), "status is None"),
    ("shell", _msg("execute_reply", {"status": "error"}), "without its error's name"),
    ("shell", _msg("execute_reply", {**ERROR_REPLY, "traceback": "one line"}),
     "without its error's name"),
])
def test_a_malformed_message_is_refused(channel, message, why):
    with pytest.raises(KernelMessageError, match=why):
        MessageCheck().check(channel, message)


@pytest.mark.parametrize("channel,kind,content", [
    ("iopub", "status", {"execution_state": "idle"}),
    ("shell", "execute_reply", OK_REPLY),
])
def test_a_second_end_of_one_request_is_a_forgery(channel, kind, content):
    check = MessageCheck()
    check.cell = 4
    check.check(channel, _msg(kind, content))
    check.cell = 6
    check.check(channel, _msg(kind, content, "req-2"))  # another request's: fine
    with pytest.raises(KernelMessageError, match=r"a second .* for cell 5's request \(a forged"):
        check.check(channel, _msg(kind, content))


def test_it_knows_which_cells_the_kernel_itself_answered():
    """A reply read while a cell ran: the executor then tells a cell whose outputs never
    ended (its ``idle`` missing after a reply) from one that ignored the interrupt."""
    check = MessageCheck()
    check.cell = 2
    check.check("iopub", _msg("status", {"execution_state": "idle"}))
    assert not check.replied(2)
    check.check("shell", _msg("execute_reply", OK_REPLY))
    assert check.replied(2) and not check.replied(3)


GARBAGE = """
from ipykernel.kernelapp import IPKernelApp
IPKernelApp.instance().kernel.iopub_socket.send_multipart([b"garbage", b"\\xff"])
"""


def test_garbage_frames_from_a_real_kernel_are_a_kernel_message_error():
    """A real ipykernel whose code writes raw frames on its iopub socket: the checked client
    raises ``KernelMessageError`` when it reads them, and goes on reading past them."""
    async def run():
        km, kc = await start_new_async_kernel(kernel_name="python3")
        try:
            check_channels(kc, MessageCheck())
            kc.execute(GARBAGE)
            seen, refused = [], []
            while "idle" not in seen:
                try:
                    msg = await kc.iopub_channel.get_msg(timeout=30)
                except KernelMessageError as exc:
                    refused.append(str(exc))
                    continue
                except Empty:
                    break
                seen.append(msg["content"].get("execution_state"))
            reply = await kc.shell_channel.get_msg(timeout=30)
            return refused, seen, reply["content"]["status"]
        finally:
            kc.stop_channels()
            await km.shutdown_kernel(now=True)
    refused, seen, status = asyncio.run(run())
    assert len(refused) == 1 and "not a Jupyter message" in refused[0], refused
    assert "idle" in seen and status == "ok"


@pytest.mark.slow
def test_without_a_box_the_kernel_is_restarted_and_the_judge_grades(tmp_path):
    """``Sandbox.mode = "off"`` (no box): a submission whose first answer cell writes raw
    frames on iopub is graded by real nbgrader; that cell gets the error, a fresh kernel
    runs the cells after it (none is ``NotRun``), the attacked item scores 0 and the
    submission is flagged with the reason."""
    import shutil

    import nbformat
    from nbgrader.api import Gradebook

    from labgrader import Course, course_config

    from .test_autograde_jobs import _kc_assignment, _submit
    src = _kc_assignment()
    root = tmp_path / "course"
    shutil.copytree(src.parent, root / "solutions" / src.parent.name)
    course = Course(course_config(root, **{"Execute.timeout": 20, "Sandbox.mode": "off"}))
    assert course.release()
    a, name = src.parent.name, src.stem
    attack = (Path(__file__).parent / "hostile" / "kernel" / "garbage_frames.py").read_text()
    _submit(course, a, name, "forger", first=attack)
    assert course.autograde(a), "the submission stopped grading"
    with Gradebook(course.coursedir.db_url) as gb:
        nb = gb.find_submission_notebook(name, a, "forger")
        scores = {g.name: g.auto_score for g in nb.grades if g.name.endswith("_test")}
        reasons = " ".join(c.auto_comment or "" for c in nb.comments)
        assert nb.flagged and scores and sum(scores.values()) == 0, scores
    assert "the kernel's messages could not be read in cell" in reasons, reasons
    graded = nbformat.read(course._dir("autograded") / "forger" / a / f"{name}.ipynb", 4)
    errors = [o.ename for c in graded.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert "KernelMessageError" in errors and "NotRun" not in errors, errors
