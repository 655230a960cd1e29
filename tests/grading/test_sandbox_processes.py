"""The trusted child's process rules (``labgrader.syscalls``), enforced by the
kernel: a student's function cannot start a process (fork, spawn, exec, a multiprocessing
pool, libc's fork through ctypes), close, duplicate or redirect the result channel, or
signal another process; a thread may start (the checks need one) and is traced. Then each ``hostile/proc_*.py``
submission, through the trusted pass alone: none passes, and each is flagged as it should
be (the audit flags them too: ``tests/grading/test_audit.py``; the whole class is graded
through nbgrader in ``tests/grading/test_hostile.py``)."""
import ctypes
import multiprocessing
import operator
import os
import subprocess
import threading

import pytest

import adapters
import hostile_cases
from labgrader import cellcode, syscalls, trusted

HOSTILE = hostile_cases.HOSTILE


def _in_filtered_child(action) -> tuple[int, bytes]:
    """Run ``action(channel)`` in a forked child under the filter: (exit code, what it
    wrote on the channel)."""
    syscalls.prepare()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            syscalls.load(w)
            action(w)
            os.write(w, b"ok")
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 1024):
        data += chunk
    os.close(r)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), data


def _thread(channel):
    t = threading.Thread(target=os.write, args=(channel, b"t:"))
    t.start()
    t.join()


def test_threads_writes_and_own_signals_are_allowed():
    assert _in_filtered_child(_thread) == (0, b"t:ok")
    assert _in_filtered_child(lambda w: os.write(w, b"x")) == (0, b"xok")
    assert _in_filtered_child(lambda w: os.kill(os.getpid(), 0)) == (0, b"ok")


@pytest.mark.parametrize("action", [
    lambda w: os.fork(),
    lambda w: operator.attrgetter("fork")(os)(),
    lambda w: os.posix_spawn("/bin/true", ["true"], {}),
    lambda w: subprocess.run(["/bin/true"]),
    lambda w: multiprocessing.get_context("fork").Process(target=print).start(),
    lambda w: ctypes.CDLL(None).fork(),
    lambda w: ctypes.CDLL(None).syscall(56, 17, 0, 0, 0, 0),  # clone(SIGCHLD): a fork
    lambda w: os.execv("/bin/true", ["true"]),
    lambda w: os.close(w),
    lambda w: os.dup(w),
    lambda w: os.dup2(os.open(os.devnull, os.O_WRONLY), w),
    lambda w: os.closerange(3, 1000),
    lambda w: os.set_blocking(w, False),
    lambda w: os.kill(os.getppid(), 0),
    lambda w: os.kill(-1, 0),  # signal 0: harmless if the filter ever failed to load
], ids=["fork", "attrgetter", "posix_spawn", "subprocess", "multiprocessing", "ctypes_fork",
        "raw_clone", "exec", "close", "dup", "dup2", "closerange", "nonblocking",
        "signal_parent", "signal_all"])
def test_new_processes_and_a_moved_channel_are_killed(action):
    code, data = _in_filtered_child(action)
    assert syscalls.broke_rules(code) and data == b"", (code, data)


def _refused(call):
    """``call()`` must fail with EPERM (the filter refuses it; the child lives on)."""
    def action(w):
        try:
            call()
        except PermissionError:
            os.write(w, b"refused:")
    return action


def _locked_file():
    return open(os.__file__, "rb")  # a system file every box can read


@pytest.mark.parametrize("call", [
    lambda: __import__("fcntl").flock(_locked_file(), __import__("fcntl").LOCK_SH),
    lambda: __import__("fcntl").lockf(_locked_file(), __import__("fcntl").LOCK_SH),
    lambda: __import__("fcntl").fcntl(_locked_file(), syscalls.F_OFD_SETLK,
                                      bytes(32)),
    lambda: __import__("fcntl").fcntl(_locked_file(), syscalls.F_GETLK, bytes(32)),
    lambda: __import__("fcntl").fcntl(os.open("/", os.O_RDONLY), syscalls.F_NOTIFY, 1),
    lambda: ctypes.CDLL(None, use_errno=True).inotify_init() >= 0 or _raise_errno(),
], ids=["flock", "lockf", "ofd_lock", "lock_query", "dnotify", "inotify"])
def test_file_locks_and_watches_are_refused(call):
    """No signal through a shared file (redteam9): locks and watches fail, the child lives."""
    assert _in_filtered_child(_refused(call)) == (0, b"refused:ok")


def _raise_errno():
    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def _libc_call(name: str, *args):
    """A libc function that returns -1 (or an error number, as ``posix_fadvise`` does) on
    failure, raised as an OSError."""
    libc = ctypes.CDLL(None, use_errno=True)
    ret = getattr(libc, name)(*args)
    if name == "posix_fadvise" and ret:
        raise OSError(ret, os.strerror(ret))
    if ret < 0:
        _raise_errno()


_PAGES = []  # files and mappings kept open while a call uses them


def _fd() -> int:
    f = _locked_file()
    _PAGES.append(f)
    return f.fileno()


def _page() -> int:
    """The address of a mapped page (``mincore`` asks which pages of a mapping are cached)."""
    import mmap
    m = mmap.mmap(-1, 4096)
    _PAGES.append(m)
    return ctypes.addressof(ctypes.c_char.from_buffer(m))


@pytest.mark.parametrize("call", [
    lambda: os.posix_fadvise(_fd(), 0, 0, os.POSIX_FADV_DONTNEED),
    lambda: os.posix_fadvise(_fd(), 0, 0, os.POSIX_FADV_WILLNEED),
    lambda: _libc_call("readahead", _fd(), ctypes.c_long(0), ctypes.c_size_t(4096)),
    lambda: os.preadv(_fd(), [bytearray(4096)], 0, os.RWF_NOWAIT),
    lambda: _libc_call("mincore", ctypes.c_void_p(_page()), ctypes.c_size_t(4096),
                       ctypes.create_string_buffer(1)),
    lambda: _libc_call("syscall", 451, _fd(), ctypes.create_string_buffer(32),
                       ctypes.create_string_buffer(64), 0),  # cachestat
    lambda: _libc_call("madvise", ctypes.c_void_p(_page()), ctypes.c_size_t(4096), 21),  # MADV_PAGEOUT
], ids=["fadvise_dontneed", "fadvise_willneed", "readahead", "preadv_nowait", "mincore",
        "cachestat", "madvise_pageout"])
def test_the_page_cache_cannot_be_watched_or_pushed(call):
    """No signal through the page cache every box shares (redteam11): dropping, loading or
    probing a page without a plain read fails, the child lives."""
    assert _in_filtered_child(_refused(call)) == (0, b"refused:ok")


def test_plain_reads_and_preadv_without_flags_still_work():
    def action(w):
        f = _locked_file()
        ok = os.preadv(f.fileno(), [bytearray(64)], 0) == 64 and len(f.read(10)) == 10
        os.write(w, b"reads:" if ok else b"no reads:")
    assert _in_filtered_child(action) == (0, b"reads:ok")


def test_the_filter_still_lets_fcntl_read_and_set_flags():
    """The lock rules leave fcntl's other commands alone (``os.set_blocking`` on a pipe)."""
    def action(w):
        r2, w2 = os.pipe()
        os.set_blocking(r2, False)
        os.write(w, b"flags:" if not os.get_blocking(r2) else b"still blocking:")
    assert _in_filtered_child(action) == (0, b"flags:ok")


def _test_source(ex_id: str) -> str:
    name = adapters.target_name(ex_id)
    return f"check_{ex_id}({name})\ncheck_{ex_id}({name}, hidden=True)\n"


@pytest.mark.slow
@pytest.mark.parametrize("name, want", [
    ("proc_fork_devnull", "tampered"), ("proc_fork_plain", "tampered"),
    ("proc_spawn", "tampered"), ("proc_subprocess", "tampered"),
    ("proc_multiprocessing", "tampered"), ("proc_ctypes_fork", "tampered"),
    ("proc_ctypes_trace", "tampered"),
    ("proc_fd_redirect", "reference"),  # the judge's channel is a socket: the stub's report arrives
    ("proc_thread_attrgetter", "reference"), ("proc_ref_by_path", "reference")])
def test_trusted_pass_stops_processes_threads_and_foreign_calls(name, want):
    case = hostile_cases.case(HOSTILE / f"{name}.py")
    item = trusted.Item(f"{case.target}_test", cellcode.python_source(case.source),
                        _test_source(case.target))
    status, message, _ = trusted.run_items([item], timeout_s=10)[item.grade_id]
    assert status == want, (status, message)


@pytest.mark.slow
def test_the_rules_hold_in_the_grading_box(tmp_path):
    """The same rules in a namespaces box as the pipeline opens one (root): the honest
    answer passes, a fork and a foreign call are marked."""
    from labgrader.sandbox import Sandbox, namespaces_available
    ok, why = namespaces_available()
    if not ok:
        pytest.skip(why)
    items = [trusted.Item("ex03_2_test", cellcode.python_source(adapters.cell("ex03_2").source),
                          _test_source("ex03_2"))]
    for name in ("proc_fork_devnull", "proc_ctypes_fork"):
        case = hostile_cases.case(HOSTILE / f"{name}.py")
        items.append(trusted.Item(f"{case.target}_test", cellcode.python_source(case.source),
                                  _test_source(case.target)))
    got = []
    for item in items:  # one box per notebook, as the pipeline does
        box = Sandbox(mode="namespaces").open(tmp_path)
        try:
            got.append(trusted.run_items([item], timeout_s=20, run=box.run)[item.grade_id][0])
        finally:
            box.close()
    assert got == ["pass", "tampered", "tampered"], got
