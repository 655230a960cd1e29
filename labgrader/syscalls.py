"""The system calls a trusted child may not make once a student's code can run: a seccomp
filter (libseccomp, through ``pyseccomp``) loaded by the child before the answer cell.

The kernel enforces it, whatever the Python objects of the child hold:

- **no new process**: ``fork``, ``vfork``, ``execve``, ``execveat`` and a ``clone`` without
  ``CLONE_THREAD`` kill the child at once (``SIGSYS``); the helper marks the item as
  tampering (``KILLED_BY``). ``clone3`` answers ``ENOSYS`` (its flags sit in memory a filter
  cannot read), so the C library falls back to ``clone``, whose flags it reads. Threads
  stay: ex02_5 asks for a threaded batcher, the checks run a batcher in a thread (virtual
  clock), and the tripwire traces every thread. (A zero ``RLIMIT_NPROC`` would stop threads
  too: Linux counts them as processes of the uid.)
- **the result channel stays where it is**: closing, duplicating or replacing its
  descriptor (``close``, ``dup``, ``dup2``/``dup3`` onto or from it, any ``fcntl`` or
  ``ioctl`` on it (``F_DUPFD``, non-blocking), ``close_range`` over it) kills the child, so
  a message the grader sent the moment it happened (a reference hit, a tampering) always
  reaches the helper, and nothing can point the channel elsewhere; a frame the student's
  code writes itself is no more than a value its function returned (the judge checks it
  like any other).
- **no signal to another process** (the helper that judges it, above all): ``kill`` and
  its kin only for its own pid.
- **no way around the box**: ``ptrace``, ``process_vm_writev``, mounts, namespaces,
  ``bpf``, ``memfd_create`` (code to load from memory), ``userfaultfd``, ``io_uring``.
- **no signals through shared files**: file locks (``flock``; ``fcntl``'s record, open-file
  and lease locks, and their queries) and file-change watches (``inotify``, ``fanotify``,
  ``fcntl``'s ``F_NOTIFY``) fail with ``EPERM``. Every box reads the same system files, and
  a lock one process takes is seen at once by any other that can read the file: a child
  could ask a kernel running at the same time (another box, which holds the lab's own
  implementations) for each answer, and the kernel could print the hidden cases it was
  asked into its notebook (the ninth red team, ``tests/grading/hostile/redteam9``).
- **no look at or push on the page cache** (redteam11): the pages of those files are shared
  by every box too, so dropping one (``posix_fadvise``'s ``DONTNEED``, ``madvise``'s
  ``MADV_PAGEOUT``/``MADV_COLD``), loading one without a read (``readahead``) or asking
  whether one is cached without loading it (``preadv2``/``pwritev2`` with flags such as
  ``RWF_NOWAIT``, ``mincore``, ``cachestat``) fails with ``EPERM``: each was one half of a
  channel to a kernel beside the child. A plain read still loads a page, and how long it
  took still says whether it was cached: a slower, one-shot channel no filter can close
  (``docs/trainers.md``, what the sandbox does not stop).

``pyseccomp`` finds its libraries with ``ctypes.util.find_library``, which starts
``ldconfig``: the helper imports it (``prepare``) before any child forks.
"""
from __future__ import annotations

import errno
import os
import signal
import sys

KILLED_BY = signal.SIGSYS  # a child ended by this signal broke one of the rules above

CLONE_THREAD = 0x00010000
NO_PROCESS = ("fork", "vfork", "execve", "execveat")
NO_ESCAPE = ("tkill", "pidfd_open", "pidfd_send_signal", "ptrace", "process_vm_writev",
             "process_vm_readv", "mount", "umount2", "unshare", "setns", "pivot_root",
             "chroot", "bpf", "memfd_create", "userfaultfd", "io_uring_setup", "open_tree",
             "move_mount", "fsopen", "fsmount", "fspick", "mount_setattr", "kcmp",
             "pidfd_getfd", "personality")
NO_FILE_SIGNALS = ("flock", "inotify_init", "inotify_init1", "inotify_add_watch",
                   "fanotify_init", "fanotify_mark")  # refused: EPERM
F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7  # fcntl's commands that lock or query locks, watch a
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38  # folder (F_NOTIFY) or take a lease
F_SETLEASE, F_GETLEASE, F_NOTIFY = 1024, 1025, 1026
LOCK_COMMANDS = (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW,
                 F_SETLEASE, F_GETLEASE, F_NOTIFY)
NO_PAGE_CACHE = ("fadvise64", "readahead", "mincore", "cachestat")  # refused: EPERM
BY_NUMBER = {"cachestat": 451}  # x86_64's number, for a libseccomp older than the call
WITH_FLAGS = ("preadv2", "pwritev2")  # refused (EPERM) when their flags (argument 5) are set
MADV_COLD, MADV_PAGEOUT = 20, 21  # madvise's advice that drops pages (refused: EPERM)


def prepare():
    """Import the binding (its libraries are looked up with ``ldconfig``: a new process).
    Off Linux there is no seccomp (the sandbox is off there too, with a warning): None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import pyseccomp
    except (ImportError, RuntimeError) as err:  # RuntimeError: libseccomp not found
        raise RuntimeError(f"the trusted pass needs libseccomp and pyseccomp ({err}); "
                           "pip install -r requirements.txt") from err
    return pyseccomp


def load(channel: int) -> None:
    """Load the filter into this process (and every thread it starts); ``channel``: the
    result pipe's descriptor, which may be written to but not closed, duplicated or
    replaced. Cannot be undone: a filter only ever adds rules."""
    sc = prepare()
    if sc is None:
        return
    kill = sc.KILL_PROCESS
    f = sc.SyscallFilter(sc.ALLOW)
    for name in NO_PROCESS + NO_ESCAPE:
        f.add_rule(kill, name)
    f.add_rule(kill, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))
    me = os.getpid()
    for name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):  # only itself
        f.add_rule(kill, name, sc.Arg(0, sc.NE, me))
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    f.add_rule(kill, "close", sc.Arg(0, sc.EQ, channel))
    f.add_rule(kill, "dup", sc.Arg(0, sc.EQ, channel))
    for name in ("dup2", "dup3"):
        f.add_rule(kill, name, sc.Arg(0, sc.EQ, channel))
        f.add_rule(kill, name, sc.Arg(1, sc.EQ, channel))
    for name in ("fcntl", "ioctl"):  # F_DUPFD; F_SETFL or FIONBIO: non-blocking
        f.add_rule(kill, name, sc.Arg(0, sc.EQ, channel))
    f.add_rule(kill, "close_range", sc.Arg(0, sc.LE, channel), sc.Arg(1, sc.GE, channel))
    refuse = sc.ERRNO(errno.EPERM)
    for name in NO_FILE_SIGNALS:
        f.add_rule(refuse, name)
    for command in LOCK_COMMANDS:
        f.add_rule(refuse, "fcntl", sc.Arg(1, sc.EQ, command))
    for name in NO_PAGE_CACHE:
        try:
            f.add_rule(refuse, name)
        except OSError:  # a call this libseccomp cannot name (cachestat: Linux 6.5): by number
            if name in BY_NUMBER and os.uname().machine == "x86_64":
                f.add_rule(refuse, BY_NUMBER[name])
    for name in WITH_FLAGS:
        f.add_rule(refuse, name, sc.Arg(5, sc.NE, 0))
    for advice in (MADV_COLD, MADV_PAGEOUT):
        f.add_rule(refuse, "madvise", sc.Arg(2, sc.EQ, advice))
    f.load()


def broke_rules(exitcode: int | None) -> bool:
    """Whether a child's exit code (``multiprocessing``: minus the signal) says the filter
    killed it."""
    return exitcode == -KILLED_BY
