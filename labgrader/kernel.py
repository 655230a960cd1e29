"""The grading kernel: an ipykernel started inside the submission's sandbox (a ``box.Box``).

``BoxedKernelManager`` is jupyter_client's kernel manager with three changes: the kernel
command is wrapped by the box (``Box.command``); the kernel talks ZMQ over unix sockets
(``ipc``), since a box has its own network namespace; and those sockets live in the box's
private ``/tmp``, which the grader reaches through links in the box's host folder to
``/proc/<jail>/root/…`` (namespaces mode; relinked when the kernel restarts, so the
client's addresses stay the same) while the kernel sees plain paths. The kernel reads a copy of the connection file
that the jail places in its scratch folder; nbclient receives the outputs as messages,
each at most ``MAX_MESSAGE`` bytes, at most ``QUEUE`` of them waiting (the grader's memory
stays bounded however fast a submission prints).
"""
from __future__ import annotations

import os
import subprocess

import zmq
import zmq.asyncio
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from traitlets import Any, DottedObjectName, Type

MAX_MESSAGE = 16 << 20  # bytes; a larger message is dropped by ZMQ (a plot is ~100 kB)
QUEUE = 64              # messages waiting per socket before ZMQ stops reading
IOPUB_LOOK_S = 0.02     # how long a starting kernel's IOPub is watched before asking again (s)
# plain tracebacks: IPython's default (``Context``) reads every frame's module and source,
# 40-90 ms an error with torch loaded, and a test cell's error is replaced by the judge's
KERNEL_ARGS = ("--InteractiveShell.xmode=Plain",)


class BoxedKernelClient(AsyncKernelClient):
    """nbclient's kernel client with bounded ZMQ receive buffers, and a start that asks the
    kernel again sooner while its IOPub messages cannot reach the client yet."""

    def _context_default(self) -> zmq.asyncio.Context:
        ctx = super()._context_default()
        ctx.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE)
        ctx.setsockopt(zmq.RCVHWM, QUEUE)
        return ctx

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        """jupyter_client's wait (ask for ``kernel_info`` until the reply comes and an IOPub
        message shows that channel connected), with each look at IOPub cut to
        ``IOPUB_LOOK_S``: the first reply's IOPub messages go out before the client's
        subscription has reached the kernel, so its 0.2 s look at IOPub always ran out
        before it asked again (0.33 → 0.15 s a kernel start)."""
        channel = self.iopub_channel
        whole = channel.get_msg

        async def look(timeout: float | None = None):
            return await whole(timeout=IOPUB_LOOK_S if timeout is not None else None)
        channel.get_msg = look
        try:
            await super().wait_for_ready(timeout)
        finally:
            del channel.get_msg  # the channel's own method again


class BoxedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels run in ``box`` (a ``box.Box``)."""

    box = Any(None, help="the box.Box the kernel runs in")
    client_class = DottedObjectName("labgrader.kernel.BoxedKernelClient")
    # AsyncKernelManager's own default for the factory ignores ``client_class``
    client_factory = Type(BoxedKernelClient, klass=AsyncKernelClient)

    @property
    def _inside(self) -> tuple[str, str]:
        """(connection file, socket prefix) as the kernel sees them."""
        return f"{self.box.scratch}/kernel.json", f"{self.box.scratch}/kernel"

    async def _async_pre_start_kernel(self, **kw):
        self.transport = "ipc"
        self.ip = self._inside[1]  # written into the connection file the kernel reads
        if not self.connection_file:
            self.connection_file = str(self.box.dir / "kernel.json")
        kw.pop("cwd", None)  # the kernel starts in the box's scratch folder
        return await super()._async_pre_start_kernel(**kw)

    def format_kernel_cmd(self, extra_arguments=None) -> list[str]:
        cmd = super().format_kernel_cmd(extra_arguments) + list(KERNEL_ARGS)
        host, inside = os.path.realpath(self.connection_file), self._inside[0]
        cmd = [inside if arg == host else arg for arg in cmd]
        return self.box.command(cmd, files={inside: host})

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        kw.update(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # outputs come as messages
        if self.box.warm:  # a fork of the job slot's warm template (``warm``)
            prov = self.provisioner
            prov.process = self.box.launch(kernel_cmd, env=kw.get("env"))
            prov.pid = prov.pgid = prov.process.pid  # the leader of its own session
            self._reconcile_connection_info(prov.connection_info)
        else:
            await super()._async_launch_kernel(kernel_cmd, **kw)
        proc = self.provisioner.process
        self.box.watch(proc)
        inside = self._inside[1]
        if self.box.outside(inside, proc) == inside:  # plain mode: the same folder
            return
        self.ip = str(self.box.dir / "kernel")  # where the grader connects: links into the box
        for port in self.ports:
            link = f"{self.ip}-{port}"
            if os.path.lexists(link):
                os.unlink(link)
            os.symlink(self.box.outside(f"{inside}-{port}", proc), link)
