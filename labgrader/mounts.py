"""The sandbox's view of the file system, built by ``jail.py`` as root in the box's new
mount namespace (standard library only: the jail imports it from this folder).

The private folders are covered by empty tmpfs mounts; what grading needs is bound back,
read-only, from file descriptors opened before; the whole tree is made read-only except
the size-limited writable tmpfs mounts (``/tmp``, ``/dev/shm``); the files the command
needs (its connection file, a font cache) are copied into its scratch folder.
"""
from __future__ import annotations

import ctypes
import os
import struct

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
SYS_MOUNT_SETATTR, MOUNT_ATTR_RDONLY, AT_RECURSIVE, AT_FDCWD = 442, 1, 0x8000, -100

libc = ctypes.CDLL(None, use_errno=True)


def checked(ret: int, what: str) -> int:
    if ret < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return ret


def mount(src: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    enc = (lambda s: s.encode() if s is not None else None)
    checked(libc.mount(enc(src), enc(target), enc(fstype), ctypes.c_ulong(flags),
                      enc(data) if data else None), f"mount {target}")


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
        mount(None, path, None, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV)


def _under(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _cover(path: str, writable: dict) -> None:
    """A tmpfs over ``path``: what was there is no longer visible. Empty and small, or the
    size-limited writable scratch for the paths in ``writable`` (path -> bytes)."""
    if path in writable:
        mount("none", path, "tmpfs", MS_NOSUID | MS_NODEV,
               f"mode=1777,size={writable[path]},nr_inodes=16k")
    elif os.path.isdir(path):
        mount("none", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m,nr_inodes=4k")
    elif os.path.exists(path):
        mount("/dev/null", path, None, MS_BIND)


def _bind(fd: int, target: str) -> None:
    """Bind the file or folder opened as ``fd`` (before it was covered) at ``target``."""
    src = f"/proc/self/fd/{fd}"
    if os.path.isdir(src):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            open(target, "w").close()
    mount(src, target, None, MS_BIND | MS_REC)


def build_mounts(spec: dict) -> None:
    """The sandbox's view of the file system (run in the new mount namespace, as root).

    The private folders (``hide``) are covered; what grading needs (``readable``) is bound
    back from file descriptors opened before, and a folder of ``views`` (inside -> host) in
    place of what was bound back at ``inside``; everything is made read-only except the
    writable tmpfs mounts (``writable``: ``/tmp`` and ``/dev/shm``, size-limited).
    """
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    writable = {os.path.normpath(p): int(n) for p, n in spec["writable"].items()}
    hide = sorted({os.path.normpath(p) for p in [*spec["hide"], *writable]})
    roots = [p for i, p in enumerate(hide) if not _under(p, hide[:i])]
    readable = sorted({os.path.normpath(p) for p in spec["readable"] if os.path.exists(p)})
    readable = [p for i, p in enumerate(readable) if not _under(p, readable[:i])]
    fds = {p: os.open(p, os.O_PATH | os.O_CLOEXEC) for p in readable if _under(p, roots)}
    views = {os.path.normpath(inside): os.open(host, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
             for inside, host in spec.get("views", {}).items()}
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
    for p, fd in views.items():  # shown in place of what is bound back there
        if not os.path.isdir(p):
            raise OSError(f"the view's place is not a bound-back folder: {p}")
        _bind(fd, p)
        os.close(fd)
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
