"""The trusted pass's student process (issue 30): where a student's code runs, and only it.

The judge (``labgrader.trusted``) starts it once per notebook (``python -P -m
labgrader.student <socket fd>``): a fresh process, not a fork of the judge, that imports
the heavy libraries the cells need (numpy; torch where the judge needed it) and nothing of
the lab. For each item the judge names the item's package view (``labgrader.view``: the
lab's own implementations of the exercise are stubs there that tell the judge when called)
and hands over a channel (a socket, passed with ``SCM_RIGHTS``). Per view, one *template*
(``_template``) imports the lab from it once: it puts the view first on ``sys.path`` and,
where the system lets it, shows the view at the genuine package's folder too (a private
mount namespace: the genuine files are out of reach). It never runs a student's code: for
each item it forks one child (``_item``), which:

1. loads the seccomp filter (``syscalls``: no new process, the channel stays put), the audit
   hook (``watch_tracing``), the tripwire (``tripwire``: a copy of a reference's code, by its
   shape, sent by the judge as digests), and runs the answer cell;
2. sends the values of the names the test reads, then answers the judge's calls one by one:
   each request (``tape.Remote``) names a student's object or a lab driver and its arguments;
   the call runs here (watched, under the step limit where asked) and its outcome goes back
   as one recorded call (``tape.Tape``, ``wire``).

Items of the same view (the knowledge check's, with no reference to stub) share one template,
so the lab is imported once for them; each child still starts from the template's clean
state, and the judge checks the view's files before it names the view again
(``view.unchanged``). The check, its expected values and the hidden keys never enter this
process: what it can send is by construction only the student's answer, which the judge
checks like any other. Frames: 4-byte length, then JSON from here, pickle from the judge
(the only reader of this process's frames is the judge, which never unpickles them).
"""
from __future__ import annotations

import contextlib
import json
import os
import pickle
import socket
import struct
import sys

READY = {"kind": "ready"}
SCRUB_ENV = ("LAB_GRADER_SEED", "LAB_KEYS_DIR")


def send(fd: int, message: dict) -> None:
    """One JSON frame (never pickle: the reader is the judge)."""
    send_bytes(fd, json.dumps(message, allow_nan=False).encode())


def send_bytes(fd: int, data: bytes) -> None:
    data = struct.pack("!I", len(data)) + data
    while data:
        data = data[os.write(fd, data):]


def _read(fd: int, n: int) -> bytes | None:
    buf = b""
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def read_frame(fd: int) -> bytes | None:
    """The next frame's body, or None when the other end closed."""
    head = _read(fd, 4)
    if head is None:
        return None
    return _read(fd, struct.unpack("!I", head)[0])


def _private_view(view: str, genuine: str) -> bool:
    """Show ``view``'s package at the genuine package's folder, in a mount namespace of this
    process alone (a user namespace makes that possible without privileges); False where
    the system does not allow it (``view`` is still first on ``sys.path``)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(0x10000000 | 0x00020000) != 0:  # CLONE_NEWUSER | CLONE_NEWNS
        return False
    try:
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
    except OSError:
        return False
    ms_bind, ms_rdonly, ms_remount, ms_rec, ms_private = 4096, 1, 32, 16384, 1 << 18
    if libc.mount(None, b"/", None, ms_rec | ms_private, None) != 0:
        return False
    src = os.path.join(view, "labsupport").encode()
    if libc.mount(src, genuine.encode(), None, ms_bind | ms_rec, None) != 0:
        return False
    libc.mount(None, genuine.encode(), None, ms_bind | ms_remount | ms_rdonly, None)
    return True


def _seal(private: bool, view: str) -> None:
    """The template, before any child: not dumpable (a child of the same user cannot open
    its ``/proc/<pid>/mem``), and in its own mount namespace its view read-only (a child
    cannot change what the next child of the template imports)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    view = view.encode()
    if private and libc.mount(view, view, None, 4096 | 16384, None) == 0:  # MS_BIND | MS_REC
        libc.mount(None, view, None, 4096 | 32 | 1 | 16384, None)  # ... | MS_REMOUNT | MS_RDONLY


def _drop_capabilities() -> None:
    """An item's child gives up every capability it holds in the template's user namespace
    (``CAP_SYS_PTRACE`` over the template among them)."""
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.capset(ctypes.byref(Header(0x20080522, 0)), (Data * 2)()) != 0:  # version 3
        raise OSError(ctypes.get_errno(), "capset")


def _template(ctl: socket.socket, setup: dict) -> None:
    """Import the lab from one view, once, and fork a child per item (its channel arrives
    on ``ctl``); tell the student process each child's pid, then its exit code."""
    view, genuine = setup["view"], setup["genuine"]
    os.environ.update(setup["env"])  # the lab's data, where the genuine package finds it
    private = _private_view(view, genuine)
    sys.path.insert(0, view)
    sys.dont_write_bytecode = True
    null = os.open(os.devnull, os.O_RDWR)
    for n in (0, 1, 2):
        os.dup2(null, n)
    from labsupport.exercises import guard, plain  # noqa: F401 - imported once, for every child
    from . import tape, tripwire, wire  # noqa: F401
    from .fingerprint import fingerprint
    in_use = guard.__file__.startswith((view, genuine if private else view))
    base = fingerprint()  # each child's "before", but for what its set-up changes
    roots = tuple(dict.fromkeys(os.path.join(p, "") for p in (
        view, *([genuine] if private else []), sys.prefix, sys.base_prefix)))
    _seal(private, view)
    while True:
        msg, fds, _, _ = socket.recv_fds(ctl, 1 << 16, 1)
        if not msg or not fds:
            return
        if not in_use:  # said on ``ctl``, which no child holds: a child cannot stop the run
            for fd in fds:
                os.close(fd)
            ctl.sendall(json.dumps({"error": f"the package view is not in use "
                                             f"({guard.__file__})"}).encode())
            continue
        pid = os.fork()
        if pid == 0:
            try:
                ctl.close()
                _item(fds[0], roots, private, base)
            finally:
                os._exit(0)
        for fd in fds:
            os.close(fd)
        ctl.sendall(json.dumps({"pid": pid}).encode())
        _, status = os.waitpid(pid, 0)
        ctl.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode())


def _item(chan: int, roots: tuple[str, ...], private: bool, base: dict) -> None:
    """One item, in a child of the view's template (see the module's docstring); ``base``:
    the template's fingerprint."""
    job = pickle.loads(read_frame(chan))  # from the judge
    from labsupport.exercises import guard
    from labsupport.exercises.plain import describe_error
    from . import syscalls, tripwire, wire
    from .fingerprint import changed, fingerprint
    from .tape import Tape
    from . import codewatch
    from .cellcode import run_cell, without_magics
    ex = job["ex"]
    for name in job["imports"]:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - the cell that imports it reports it
            pass
    digests = dict(job["digests"])

    def hit(e: str, ref: str) -> None:
        send(chan, {"kind": "hit", "ex": e, "ref": ref})
    wire_ = tripwire.Tripwire(on_hit=hit, codes=lambda e: digests)
    tape = Tape()
    guard.set_grading(tape=tape, watch=wire_, on_reference=lambda ref: hit(ex, ref),
                      on_limit=lambda message: (send(chan, {"kind": "limit", "message": message}),
                                                os._exit(0)), checks_off=True)
    if private:
        _drop_capabilities()  # none over the template's namespace: its memory stays its own
    syscalls.load(chan)  # from here on the kernel stops a new process or a moved channel
    watch_tracing(chan, guard, tripwire)
    codewatch.install(chan, roots, without_magics(job["answer"]), guard.Tampered)
    wire_.cover_raw_threads()
    before = fingerprint(reuse=base, again=(guard.__name__,))  # set_grading: its context
    ns: dict = {"__name__": "__main__"}
    status, message = "pass", ""
    try:
        try:
            with wire_(ex):  # the cell is the student's code too
                run_cell(job["answer"], ns, f"<{ex}>")
        finally:  # compared whether the cell ran to its end or raised
            touched = changed(before, fingerprint())
            if touched:
                raise guard.Tampered("changes the grading machinery: " + ", ".join(touched[:5]))
    except guard.Tampered as t:
        send(chan, {"kind": "tamper", "what": str(t.args[0] if t.args else "")})
        return
    except BaseException as exc:  # noqa: BLE001 - the judge's check says what it means
        status, message = "fail", describe_error(exc)[:500]
    names = {n: wire.encode(ns[n]) for n in job["names"] if n in ns}
    send(chan, {"kind": "answered", "status": status, "message": message, "names": names})
    tape.armed = True
    calls = {"student": guard.student, "bounded": guard.bounded, "driver": guard.driver}
    while True:
        body = read_frame(chan)
        if body is None:
            return
        request = _Unpickler(body, ns).load()  # from the judge
        if request == "end":
            touched = changed(before, fingerprint())
            if touched:
                send(chan, {"kind": "tamper", "what": "changes the grading machinery: "
                            + ", ".join(touched[:5])})
            send(chan, {"kind": "done"})
            return
        e, mode, fn, args, kw = request
        n = len(tape.records)
        try:
            calls[mode](e, fn, *args, **kw)
        except guard.Tampered as t:
            send(chan, {"kind": "tamper", "what": str(t.args[0] if t.args else "")})
            return
        except BaseException:  # noqa: BLE001 - recorded: the judge gets it from the record
            pass
        if len(tape.records) != n + 1:
            send(chan, {"kind": "tamper", "what": "the record of a call went missing"})
            return
        send(chan, {"kind": "call", "record": tape.records[-1]})


class _Unpickler(pickle.Unpickler):
    """The judge's request: the student's objects by name (``tape.Remote``)."""

    def __init__(self, data: bytes, ns: dict):
        import io
        super().__init__(io.BytesIO(data))
        self.ns = ns

    def persistent_load(self, pid):
        return self.ns[pid]


FOREIGN = frozenset({"ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle",
                     "ctypes.call_function", "ctypes.cdata", "ctypes.addressof",
                     "ctypes.string_at", "ctypes.wstring_at"})  # foreign calls, raw memory


def watch_tracing(fd: int, guard, tripwire) -> None:
    """An audit hook (it cannot be removed): ``sys.settrace`` or ``sys.setprofile`` called
    from anywhere but the tripwire, the step limit and a new thread's start (the calls that
    put the tripwire's tracer in place) switches the tripwire off, so the judge hears of it
    at once and the item is marked as tampering. A foreign-function call or raw memory
    access (``ctypes``: ``FOREIGN``) is refused (the hook raises before it happens) and
    marks the item too. (New processes: ``syscalls``, enforced by the kernel.)"""
    import threading
    allowed = {tripwire.Tripwire.__call__.__wrapped__.__code__, guard.bounded.__code__,
               threading.Thread._bootstrap_inner.__code__, tripwire._run_traced.__code__}
    getframe, told = sys._getframe, []

    def hook(event: str, args) -> None:
        if event in FOREIGN:
            try:
                if not told:
                    told.append(event)
                    send(fd, {"kind": "tamper", "what": f"a foreign-function call ({event})"})
            finally:
                raise guard.Tampered(f"{event}: foreign-function calls are not allowed while grading")
        if event not in ("sys.settrace", "sys.setprofile") or told:
            return
        caller = getframe(1)
        if caller.f_code not in allowed:
            told.append(event)
            send(fd, {"kind": "tamper", "what": f"{event}() switched the grader's tracing off"})
    sys.addaudithook(hook)


def main() -> int:
    import ctypes
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no child of a template (the
    #                                          same user) opens this process's memory, which the
    #                                          next template is forked from
    ctl = socket.socket(fileno=int(sys.argv[1]))
    for name in SCRUB_ENV:
        os.environ.pop(name, None)
    lab = sorted(m for m in sys.modules if m.split(".")[0] == "labsupport")
    if lab:
        raise SystemExit(f"the student process imported the lab before its view: {lab[:3]}")
    job = json.loads(ctl.recv(1 << 16))
    for name in job["preimport"]:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - an item that needs it reports it
            pass
    from . import cellcode, codewatch, syscalls  # noqa: F401 - the grader's, no lab in them
    syscalls.prepare()  # looks up its libraries with ldconfig (a new process): once, here
    ctl.sendall(json.dumps(READY).encode())
    template: Template | None = None
    try:
        while True:
            msg, fds, _, _ = socket.recv_fds(ctl, 1 << 16, 1)
            if not msg or not fds:
                return 0
            setup = json.loads(msg)
            if template is not None and template.setup != setup:
                template = template.close()
            if template is None:
                template = Template(setup)
            if not template.run(fds[0], ctl):  # it died: this item fails, the next gets a new one
                template = template.close()
    finally:
        if template is not None:
            template.close()


def _close_sockets(but: int) -> None:
    """Close every socket this process holds except ``but``: a template starts with no
    way to the judge but the channels it is handed, one per child."""
    import stat
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        with contextlib.suppress(OSError):
            if fd != but and stat.S_ISSOCK(os.fstat(fd).st_mode):
                os.close(fd)


class Template:
    """The student process's side of one view's template (``_template``)."""

    def __init__(self, setup: dict):
        self.setup = setup
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.pid = os.fork()
        if self.pid == 0:
            try:
                _close_sockets(but=theirs.fileno())  # the judge's, and the item's channel
                _template(theirs, setup)
            finally:
                os._exit(0)
        theirs.close()

    def run(self, chan: int, ctl: socket.socket) -> bool:
        """Hand ``chan`` to a new child; relay its pid and its exit code to the judge."""
        try:
            socket.send_fds(self.sock, [b"item"], [chan])
            reply = json.loads(self.sock.recv(1 << 16))
            if type(reply) is dict and "error" in reply:  # the view is not in use: no child
                ctl.sendall(json.dumps({"error": str(reply["error"])}).encode())
                return True
            pid = reply["pid"]
        except (OSError, ValueError, KeyError, TypeError):
            pid = None
        finally:
            os.close(chan)
        ctl.sendall(json.dumps({"pid": pid}).encode())
        try:
            code = json.loads(self.sock.recv(1 << 16))["exit"] if pid else None
        except (OSError, ValueError, KeyError):
            code = None
        ctl.sendall(json.dumps({"exit": code if code is not None else -9}).encode())
        return code is not None

    def close(self) -> None:
        self.sock.close()
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


if __name__ == "__main__":
    sys.exit(main())
