"""Start one command inside a grading sandbox: ``python -I -S jail.py SPEC.json``.

Standard library only (and its sibling ``mounts.py``), run as a script, so it starts in
~30 ms and nothing a submission wrote is on its path. The
parent (``labgrader.sandbox``) writes the spec; this process is the
*supervisor*: it prepares the sandbox, forks the command and waits for it.

``"mode": "ns"`` (as root): new mount, PID, network, IPC and UTS namespaces. The
supervisor joins the submission's cgroup and builds the box's file system (``mounts.py``:
private folders covered, what grading needs bound back read-only, everything read-only
but a size-limited ``/tmp``, where the scratch folder, ``HOME`` and the kernel's sockets
live).
The command runs as PID 1 of the new PID namespace (its processes die with it), with a
fresh ``/proc``, only a loopback network, the rlimits, no capabilities and the grading
user's uid.

``"mode": "plain"`` (no root): the command runs in its own session with the rlimits, in a
scratch folder; this supervisor is a child subreaper, so every process the command
leaves behind is reparented here and killed when the command ends.

Exit status: the command's, or 128 + the signal that ended it.
"""
from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import socket
import struct
import sys

if __package__:  # imported by ``warm`` (the warm template): a module of the package
    from .mounts import MS_NODEV, MS_NOEXEC, MS_NOSUID, build_mounts, checked, libc, mount
else:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run as a script: its sibling
    from mounts import MS_NODEV, MS_NOEXEC, MS_NOSUID, build_mounts, checked, libc, mount  # noqa: E402

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38
RLIMITS = {"AS": resource.RLIMIT_AS, "NPROC": resource.RLIMIT_NPROC,
           "FSIZE": resource.RLIMIT_FSIZE, "CPU": resource.RLIMIT_CPU,
           "NOFILE": resource.RLIMIT_NOFILE, "CORE": resource.RLIMIT_CORE}

def _prctl(option: int, arg: int) -> None:
    checked(libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0), f"prctl {option}")


def loopback_up() -> None:
    """A new network namespace starts with ``lo`` down; bring it up (no other interface)."""
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
    import fcntl
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, req + b"\0" * 22)[:18])[1]
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack("16sh", b"lo", flags | IFF_UP) + b"\0" * 22)


KEYCTL = {"x86_64": 250, "aarch64": 219}  # keyctl(2)'s number (glibc has no wrapper for it)
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR = 1, 7
KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -4, -5


def fresh_keyrings() -> None:
    """The kernel's keyrings of this uid outlive its processes: empty the uid's user
    keyrings (what the box before, of the same uid, left there) and join a session keyring
    of the box's own. Where the system has no keyrings (or hides them), nothing to do."""
    number = KEYCTL.get(os.uname().machine)
    if number is None:
        return
    for ring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):
        libc.syscall(number, KEYCTL_CLEAR, ring, 0, 0, 0)
    libc.syscall(number, KEYCTL_JOIN_SESSION_KEYRING, None, 0, 0, 0)


def set_limits(limits: dict) -> None:
    for name, value in limits.items():
        if value is not None:
            resource.setrlimit(RLIMITS[name], (int(value), int(value)))


def kept(env, keep: list[str]) -> dict:
    """The variables of ``env`` named in ``keep`` (an entry ending in ``_``: a prefix)."""
    return {k: v for k, v in env.items()
            if k in keep or any(k.startswith(p) for p in keep if p.endswith("_"))}


def child_env(spec: dict, base=None) -> dict:
    """The command's environment: what ``spec`` keeps of ``base`` (default: ours), and its own."""
    env = kept(os.environ if base is None else base, spec["env_keep"])
    env.update(spec["env_set"])
    return env


def _exec(spec: dict) -> None:
    os.execvpe(spec["argv"][0], spec["argv"], child_env(spec))


def _in_child(spec: dict, start=_exec) -> None:
    """The command's process (PID 1 of the new PID namespace in ``ns`` mode), isolated,
    then ``start(spec)``: exec the command (or, in a warm template's fork, run it here)."""
    ns = spec["mode"] == "ns"
    if ns:
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        loopback_up()
    else:
        os.setsid()
    set_limits(spec["rlimits"])
    if ns:
        os.setgroups([])
        os.setresgid(spec["gid"], spec["gid"], spec["gid"])
        os.setresuid(spec["uid"], spec["uid"], spec["uid"])
        fresh_keyrings()  # no state passes to the next box of this uid through the kernel's keys
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.umask(0o077)
    os.chdir(spec["cwd"])
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE, signal.SIGXFSZ,
                signal.SIGCHLD, signal.SIGALRM):
        signal.signal(sig, signal.SIG_DFL)
    start(spec)


def _join_cgroups(paths: list[str]) -> None:
    for path in paths:
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))


def _kill_descendants() -> None:
    """Plain mode: kill what the command left (orphans were reparented to this subreaper)."""
    for _ in range(50):
        kids = []
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children") as f:
                kids += [int(p) for p in f.read().split()]
        if not kids:
            return
        for pid in kids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG) == (0, 0):
                    break
            except ChildProcessError:
                break


def _gone(fd: int | None) -> bool:
    """Whether the grader holding the other end of socket ``fd`` closed it (it died)."""
    if fd is None:
        return False
    import select
    p = select.poll()
    p.register(fd, select.POLLIN | select.POLLHUP)
    return bool(p.poll(0))


def _watch_parent(pid: int, spec: dict, status_fd: int | None = None) -> None:
    """Once a second: if the grader that started us is gone (killed with its job; for a warm
    start, the grader's end of ``status_fd`` closed), kill the command and what it started,
    leave and remove the box's cgroups, and exit."""
    parent = os.getppid()

    def check(signum, frame):
        if os.getppid() == parent and not _gone(status_fd):
            return
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if spec["mode"] != "ns":
            _kill_descendants()
        for path in spec.get("cgroups", []):
            try:
                with open(os.path.join(os.path.dirname(path), "cgroup.procs"), "w") as f:
                    f.write(str(os.getpid()))
                os.waitpid(pid, 0)
                os.rmdir(path)
            except OSError:
                pass
        os._exit(137)
    signal.signal(signal.SIGALRM, check)
    signal.setitimer(signal.ITIMER_REAL, 1.0, 1.0)


def main(argv: list[str]) -> int:
    with open(argv[1]) as f:
        spec = json.load(f)
    return supervise(spec)


def supervise(spec: dict, start=_exec, status_fd: int | None = None) -> int:
    """Prepare the sandbox, fork the command's process (``_in_child``, ending in
    ``start``), wait for it; its exit status."""
    ns = spec["mode"] == "ns"
    _join_cgroups(spec.get("cgroups", []))
    if ns:
        checked(libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC
                            | CLONE_NEWUTS), "unshare")
        build_mounts(spec)
    else:
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_DUMPABLE, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the kernel gets its own SIGINT (killpg)
    pid = os.fork()
    if pid == 0:
        try:
            if status_fd is not None:
                os.close(status_fd)  # the grader's line to this supervisor, not the command's
            _in_child(spec, start)
        except BaseException as exc:  # noqa: BLE001 - report why, never run the command
            os.write(2, f"jail: cannot start the command: {exc}\n".encode())
        os._exit(126)

    def stop(signum, frame):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    _watch_parent(pid, spec, status_fd)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    signal.setitimer(signal.ITIMER_REAL, 0)  # no SIGALRM while the interpreter shuts down
    if not ns:
        _kill_descendants()
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    code = main(sys.argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
