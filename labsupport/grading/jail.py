"""Start one command inside a grading sandbox: ``python -I -S jail.py SPEC.json``.

Standard library only, run as a script (never imported by the grader for its side
effects), so it starts in ~30 ms and nothing a submission wrote is on its path. The
parent (``labsupport.grading.sandbox``) writes the spec; this process is the
*supervisor*: it prepares the sandbox, forks the command and waits for it.

``"mode": "ns"`` (as root): new mount, PID, network, IPC and UTS namespaces. The
supervisor covers the private folders with empty read-only tmpfs mounts, binds back what
grading needs (the Python prefixes, the lab package, its data) read-only, makes the whole
tree read-only, mounts a size-limited ``/tmp`` (the only writable place: the scratch
folder, ``HOME`` and the kernel's sockets live there) and joins the submission's cgroup.
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

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38
SYS_MOUNT_SETATTR, MOUNT_ATTR_RDONLY, AT_RECURSIVE, AT_FDCWD = 442, 1, 0x8000, -100
RLIMITS = {"AS": resource.RLIMIT_AS, "NPROC": resource.RLIMIT_NPROC,
           "FSIZE": resource.RLIMIT_FSIZE, "CPU": resource.RLIMIT_CPU,
           "NOFILE": resource.RLIMIT_NOFILE, "CORE": resource.RLIMIT_CORE}

libc = ctypes.CDLL(None, use_errno=True)


def _check(ret: int, what: str) -> int:
    if ret < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return ret


def _mount(src: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    enc = (lambda s: s.encode() if s is not None else None)
    _check(libc.mount(enc(src), enc(target), enc(fstype), ctypes.c_ulong(flags),
                      enc(data) if data else None), f"mount {target}")


def _prctl(option: int, arg: int) -> None:
    _check(libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0), f"prctl {option}")


def _setattr(path: str, attr_set: int, attr_clr: int, flags: int) -> bool:
    attr = struct.pack("QQQQ", attr_set, attr_clr, 0, 0)
    buf = ctypes.create_string_buffer(attr, len(attr))
    return libc.syscall(SYS_MOUNT_SETATTR, AT_FDCWD, path.encode(), flags, buf, len(attr)) == 0


def _read_only(path: str) -> None:
    """Make ``path`` and every mount below it read-only (mount_setattr, Linux >= 5.12)."""
    if _setattr(path, MOUNT_ATTR_RDONLY, 0, AT_RECURSIVE):
        return
    with open("/proc/self/mountinfo") as f:  # older kernels: one mount at a time
        points = [line.split()[4] for line in f]
    for mp in points:
        if _under(mp, [path]):
            libc.mount(None, mp.encode(), None, ctypes.c_ulong(MS_REMOUNT | MS_BIND | MS_RDONLY),
                       None)


def _writable(path: str) -> None:
    """Undo ``_read_only`` for the one mount at ``path`` (not the mounts below it)."""
    if not _setattr(path, 0, MOUNT_ATTR_RDONLY, 0):
        _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV)


def _under(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _cover(path: str, writable: dict) -> None:
    """A tmpfs over ``path``: what was there is no longer visible. Empty and small, or the
    size-limited writable scratch for the paths in ``writable`` (path -> bytes)."""
    if path in writable:
        _mount("none", path, "tmpfs", MS_NOSUID | MS_NODEV,
               f"mode=1777,size={writable[path]},nr_inodes=16k")
    elif os.path.isdir(path):
        _mount("none", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m,nr_inodes=4k")
    elif os.path.exists(path):
        _mount("/dev/null", path, None, MS_BIND)


def _bind(fd: int, target: str) -> None:
    """Bind the file or folder opened as ``fd`` (before it was covered) at ``target``."""
    src = f"/proc/self/fd/{fd}"
    if os.path.isdir(src):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            open(target, "w").close()
    _mount(src, target, None, MS_BIND | MS_REC)


def build_mounts(spec: dict) -> None:
    """The sandbox's view of the file system (run in the new mount namespace, as root).

    The private folders (``hide``) are covered; what grading needs (``readable``) is bound
    back from file descriptors opened before; everything is made read-only except the
    writable tmpfs mounts (``writable``: ``/tmp`` and ``/dev/shm``, size-limited).
    """
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    writable = {os.path.normpath(p): int(n) for p, n in spec["writable"].items()}
    hide = sorted({os.path.normpath(p) for p in [*spec["hide"], *writable]})
    roots = [p for i, p in enumerate(hide) if not _under(p, hide[:i])]
    readable = sorted({os.path.normpath(p) for p in spec["readable"] if os.path.exists(p)})
    readable = [p for i, p in enumerate(readable) if not _under(p, readable[:i])]
    fds = {p: os.open(p, os.O_PATH | os.O_CLOEXEC) for p in readable if _under(p, roots)}
    files = {}
    for inside, host in spec.get("files", {}).items():  # read before they are covered
        with open(host, "rb") as f:
            files[inside] = f.read()
    for p in roots:
        _cover(p, writable)
    for p, fd in fds.items():
        _bind(fd, p)
        os.close(fd)
    for p in hide:  # private folders that sit inside something bound back
        if p not in roots and _under(p, readable):
            _cover(p, {})
    _read_only("/")
    for p in writable:
        if p in roots:
            _writable(p)
    uid, gid, scratch = spec["uid"], spec["gid"], spec["scratch"]
    os.makedirs(scratch, mode=0o700, exist_ok=True)
    os.chown(scratch, uid, gid)
    for inside, data in files.items():
        folder = os.path.dirname(inside)
        if not os.path.isdir(folder):
            os.makedirs(folder, mode=0o700)
            os.chown(folder, uid, gid)
        with open(inside, "wb") as dst:
            dst.write(data)
        os.chown(inside, uid, gid)
        os.chmod(inside, 0o600)


def loopback_up() -> None:
    """A new network namespace starts with ``lo`` down; bring it up (no other interface)."""
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
    import fcntl
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, req + b"\0" * 22)[:18])[1]
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack("16sh", b"lo", flags | IFF_UP) + b"\0" * 22)


def set_limits(limits: dict) -> None:
    for name, value in limits.items():
        if value is not None:
            resource.setrlimit(RLIMITS[name], (int(value), int(value)))


def child_env(spec: dict) -> dict:
    keep = spec["env_keep"]
    env = {k: v for k, v in os.environ.items()
           if k in keep or any(k.startswith(p) for p in keep if p.endswith("_"))}
    env.update(spec["env_set"])
    return env


def _in_child(spec: dict) -> None:
    """The command's process (PID 1 of the new PID namespace in ``ns`` mode)."""
    ns = spec["mode"] == "ns"
    if ns:
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        loopback_up()
    else:
        os.setsid()
    set_limits(spec["rlimits"])
    if ns:
        os.setgroups([])
        os.setresgid(spec["gid"], spec["gid"], spec["gid"])
        os.setresuid(spec["uid"], spec["uid"], spec["uid"])
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.umask(0o077)
    os.chdir(spec["cwd"])
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    os.execvpe(spec["argv"][0], spec["argv"], child_env(spec))


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


def _watch_parent(pid: int, spec: dict) -> None:
    """Once a second: if the grader that started us is gone (killed with its job), kill the
    command and what it started, leave and remove the box's cgroups, and exit."""
    parent = os.getppid()

    def check(signum, frame):
        if os.getppid() == parent:
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
    ns = spec["mode"] == "ns"
    _join_cgroups(spec.get("cgroups", []))
    if ns:
        _check(libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC
                            | CLONE_NEWUTS), "unshare")
        build_mounts(spec)
    else:
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_DUMPABLE, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the kernel gets its own SIGINT (killpg)
    pid = os.fork()
    if pid == 0:
        try:
            _in_child(spec)
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
    _watch_parent(pid, spec)
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
