"""Warm starts: each job slot has two template processes, each of which has imported its
libraries once: every grading kernel of that slot is a fork of the one, every judge (the
trusted pass) a fork of the other (``PRELOAD``, by kind).

Starting Python and importing torch, transformers, numpy, matplotlib and ipykernel cost
seconds per kernel; a judge's start and imports about 0.2 s. ``Template`` starts
``python -P -m labgrader.warm SOCKET KIND`` once per job slot and kind, as the grader
(root), with a clean environment (no seed, no key, no token: nothing a student may read is
in its memory); it imports ``PRELOAD[KIND]`` and waits. For each command a grader job sends it the box's spec
(``box.Box.command`` wrote it) and the command's standard streams; the template forks a
*supervisor* that does what ``jail.py`` does — joins the box's cgroup, new namespaces, the
box's file system, then forks the command's process, which drops to the slot's grading
uid, takes the rlimits and no-new-privileges — and that process runs the command's module
(``python [-P] -m MODULE ARGS``) in place of an exec. It starts from the template's
memory: the libraries imported, no student's code ever run there, so nothing one
submission changed (a module attribute, a file, a thread) reaches the next; its files
live in its own box's ``/tmp``.

The job sees the supervisor through ``WarmProcess`` (a ``subprocess.Popen`` stand-in: pid,
poll, wait, kill), over a socket pair: the supervisor writes its pid on it, then its exit
status; when the job dies the pair closes and the supervisor kills the
command (``jail._watch_parent``). Any other command starts cold.
"""
from __future__ import annotations

import array
import contextlib
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple


class Kind(NamedTuple):
    imports: tuple[str, ...]  # what the template imports once
    module: str               # the one module its forks run (``python -m MODULE``)
    blocked: tuple[str, ...] = ()  # what its forks cannot import (ImportError)


PRELOAD = {
    "kernel": Kind(("numpy", "torch", "transformers", "transformers.models.bert.modeling_bert",
                    "transformers.models.gpt2.modeling_gpt2", "matplotlib",
                    "matplotlib.pyplot", "ipykernel.kernelapp", "ipykernel.ipkernel", "IPython",
                    "ipywidgets"), "ipykernel_launcher",
                   # no frontend debugs a grading kernel: ipykernel imports debugpy for its
                   # debugger at each start (~0.1 s of CPU) unless it cannot
                   blocked=("debugpy",)),
    # the trusted pass: what a cold judge imports before its first item, nothing heavier
    # (the student process imports again whatever of ``trusted.HEAVY`` the judge holds)
    "judge": Kind(("labsupport.exercises.guard", "labsupport.exercises.plain",
                   "labsupport.exercises.partial", "labgrader.cellcode", "labgrader.codewatch",
                   "labgrader.syscalls", "labgrader.tripwire", "labgrader.wire"),
                  "labgrader.trusted"),
}
ENV_KEEP = ("PATH", "PYTHONPATH", "LANG", "LANGUAGE", "TZ", "MPLBACKEND", "OMP_NUM_THREADS",
            "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TOKENIZERS_PARALLELISM",
            "HF_HUB_OFFLINE", "HF_HUB_DISABLE_PROGRESS_BARS", "TRANSFORMERS_OFFLINE", "LAB_DEVICE",
            "LAB_SHARED_DATA")  # what a kernel's libraries read at import; never a secret
FLAGS = {"-P", "-u", "-B", "-E", "-s"}  # interpreter flags a warm start honours (-P: no cwd)
# The judge's template imports only what a cold judge would: one forked with torch & co.
# loaded took longer than a cold one (its student process imports them again, and its
# watch checks every loaded module after each call of the student's code; 08, 2
# submissions at load 9-10: 15.3 and 14.8 s warm against 8.8 and 7.6 s cold).
READY_S = 120.0  # the template's imports, on a busy machine


def module_of(argv: list[str], kind: str | None = None) -> tuple[str, list[str], bool] | None:
    """``python [flags] -m MODULE ARGS`` with MODULE the one of a template (of ``kind``, or
    of any) → (module, args, cwd first on sys.path); None for any other command (it
    starts cold)."""
    if not argv or os.path.realpath(argv[0]) != os.path.realpath(sys.executable):
        return None
    i = 1
    while i < len(argv) and argv[i] in FLAGS:
        i += 1
    runs = {PRELOAD[kind].module} if kind else {k.module for k in PRELOAD.values()}
    if i + 1 >= len(argv) or argv[i] != "-m" or argv[i + 1] not in runs:
        return None
    return argv[i + 1], argv[i + 2:], "-P" not in argv[1:i]


class Template:
    """One job slot's template process of ``kind`` (``PRELOAD``: its kernels, or its
    judges), the grader's side."""

    def __init__(self, threads: int = 1, kind: str = "kernel"):
        if kind not in PRELOAD:
            raise ValueError(f"kind must be one of {sorted(PRELOAD)} (got {kind!r})")
        self.dir = Path(tempfile.mkdtemp(prefix="labsupport-warm-"))  # 0700: the grader's only
        self.socket = str(self.dir / "template.sock")
        env = {k: v for k, v in os.environ.items() if k in ENV_KEEP or k.startswith("LC_")}
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            env[var] = str(threads)  # libgomp reads these once, when torch loads
        env.update(MPLBACKEND="Agg", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                   HF_HUB_DISABLE_PROGRESS_BARS="1", TOKENIZERS_PARALLELISM="false")
        self.proc = subprocess.Popen([sys.executable, "-P", "-m", "labgrader.warm", self.socket, kind],
                                     env=env, cwd=self.dir, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     start_new_session=True)

    def wait_ready(self, timeout_s: float = READY_S) -> None:
        """Block until the template listens (its imports done); RuntimeError if it died."""
        end = time.monotonic() + timeout_s
        while not os.path.exists(self.socket):
            if self.proc.poll() is not None:
                raise RuntimeError("the warm template did not start: "
                                   + self.proc.stderr.read().decode(errors="replace")[-800:])
            if time.monotonic() > end:
                raise RuntimeError(f"the warm template was not ready after {timeout_s:g} s")
            time.sleep(0.05)

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.proc.stderr.close()
        with contextlib.suppress(OSError):
            os.unlink(self.socket)
            os.rmdir(self.dir)


class TemplateGone(RuntimeError):
    """A job slot's template cannot start a command (it died: killed, out of memory): the
    slot cannot grade, which is the grading environment's fault, never a submission's."""


class WarmProcess:
    """A command started by a template, as ``subprocess.Popen`` shows one (its pid is the
    supervisor's, the leader of its own session; ``returncode`` its exit status)."""

    def __init__(self, socket_path: str, spec_path: str, env: dict, stdin=None, stdout=None,
                 stderr=None):
        """``env``: the command's environment before the box's own variables (what the jail
        keeps of it). A standard stream given as ``subprocess.PIPE`` is a pipe to this
        process (``self.stdin`` & co., binary, as ``Popen`` makes them); any other is
        /dev/null (a kernel talks over its sockets)."""
        self.args, self.returncode = spec_path, None
        self._finishing = threading.Lock()
        self._status, remote = socket.socketpair()
        theirs, mine = [], []
        try:
            for i, want in enumerate((stdin, stdout, stderr)):
                if want == subprocess.PIPE:
                    r, w = os.pipe()
                    theirs.append(r if i == 0 else w)
                    mine.append(open(w if i == 0 else r, "wb" if i == 0 else "rb"))
                else:
                    theirs.append(os.open(os.devnull, os.O_RDWR))
                    mine.append(None)
            self.stdin, self.stdout, self.stderr = mine
            with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
                s.connect(socket_path)
                s.sendmsg([json.dumps({"spec": spec_path, "env": env}).encode()],
                          [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                            array.array("i", [remote.fileno(), *theirs]))])
        except OSError as exc:
            raise TemplateGone(f"the warm template at {socket_path} is gone ({exc})") from exc
        finally:
            remote.close()
            for fd in theirs:
                os.close(fd)
        got = self._read(8, READY_S)
        if len(got) < 8:
            raise TemplateGone("the warm template did not start the command")
        self.pid = struct.unpack("q", got)[0]

    def _read(self, n: int, timeout_s: float | None) -> bytes:
        buf = b""
        end = None if timeout_s is None else time.monotonic() + timeout_s
        while len(buf) < n:
            left = None if end is None else max(0.0, end - time.monotonic())
            if not select.select([self._status], [], [], left)[0]:
                break
            chunk = self._status.recv(n - len(buf))
            if not chunk:
                break
            buf += chunk
        return buf

    def _ended(self, timeout: float | None) -> bool:
        """The exit status is waiting (or another thread already read it: the box's watchdog
        and the kernel's manager both poll)."""
        try:
            return bool(select.select([self._status], [], [], timeout)[0])
        except (ValueError, OSError):  # closed by the other thread's ``_finish``
            return True

    def poll(self) -> int | None:
        if self.returncode is None and self._ended(0):
            self._finish()
        return self.returncode

    def _finish(self) -> None:
        with self._finishing:
            if self.returncode is not None:
                return
            got = self._read(4, 1.0)
            self.returncode = struct.unpack("i", got)[0] if len(got) == 4 else -signal.SIGKILL
            self._status.close()

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not self._ended(timeout):
                raise subprocess.TimeoutExpired(self.args, timeout)
            self._finish()
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


# -- the template process ------------------------------------------------------------------
def _run_module(module: str, args: list[str], cwd_first: bool, env: dict):
    """``start`` for ``jail.supervise``: run ``module`` as ``__main__`` in this process (the
    box's command process, isolated already); never returns."""
    def start(spec: dict) -> None:
        import runpy
        from .jail import child_env
        code = 0
        try:
            os.environ.clear()
            os.environ.update(child_env(spec, env))
            if cwd_first:
                sys.path.insert(0, os.getcwd())
            sys.argv = [module, *args]
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:  # noqa: BLE001 - the command failed: its traceback, exit 1
            import traceback
            traceback.print_exc()
            code = 1
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
        os._exit(code)
    return start


def _supervisor(request: dict, status: int, kind: str) -> int:
    """In the template's fork: its own session, then ``jail.supervise`` with a warm start."""
    from . import jail
    os.setsid()
    with open(request["spec"]) as f:
        spec = json.load(f)
    found = module_of(spec["argv"], kind)
    if not found:
        raise ValueError(f"not a 'python -m {PRELOAD[kind].module}' command")
    start = _run_module(*found, dict(request["env"]))
    return jail.supervise(spec, start, status_fd=status)


def _serve(path: str, role: str) -> None:
    import importlib
    from . import jail  # noqa: F401 - imported before any fork
    jail._prctl(jail.PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with the grader that started it
    for name in PRELOAD[role].imports:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    for name in PRELOAD[role].blocked:
        sys.modules[name] = None  # ``import name`` raises ImportError
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # supervisors are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path + ".part")
    os.chmod(path + ".part", 0o600)
    listener.listen(16)
    os.rename(path + ".part", path)  # ready
    while True:
        conn, _ = listener.accept()
        with conn:
            fds = array.array("i")
            msg, anc, _, _ = conn.recvmsg(1 << 20, socket.CMSG_SPACE(4 * fds.itemsize))
            for level, kind, data in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
            if len(fds) != 4:
                for fd in fds:
                    os.close(fd)
                continue
            status, streams = fds[0], list(fds[1:])
            if os.fork() == 0:
                code = 126
                try:
                    os.write(status, struct.pack("q", os.getpid()))  # before its exit status
                    listener.close()
                    conn.close()
                    for i, fd in enumerate(streams):
                        os.dup2(fd, i)
                        os.close(fd)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    code = _supervisor(json.loads(msg), status, role)
                except BaseException as exc:  # noqa: BLE001 - say why, then exit
                    os.write(2, f"warm: cannot start the command: {exc}\n".encode())
                with contextlib.suppress(OSError):
                    os.write(status, struct.pack("i", code))
                os._exit(0)
            for fd in (status, *streams):
                os.close(fd)


if __name__ == "__main__":
    _serve(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "kernel")
