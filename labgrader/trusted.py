"""The trusted grading pass: each answer cell alone, against checks it cannot replace, judged
in a process where no student code ever ran.

``run_items(items)`` starts one helper process (``python -m labgrader.trusted``,
JSON on stdin and stdout). It imports the check modules, then forks one child per item:
the child binds the genuine ``check_*`` functions, arms the reference tripwire
(``tripwire.Tripwire``: the lab's own implementation of the exercise must not
run while the student's code does; a hit is written to the helper the moment it happens)
and an audit hook (tracing switched off), fingerprints the grading machinery, runs the
student's answer cell alone (as ``tests/adapters.py`` does), then the item's test cell with
the genuine checks, and compares the fingerprint again (and, cheaply, after every call of
the student's code: ``fingerprint.Watch``). The child does not decide: every call of the student's
code is recorded as plain values (``tape.Tape``, ``wire``) and the record goes
to the helper as one JSON frame; the helper runs the test cell again on that record
(``judge``) and its verdict is the item's. A child that writes anything else on its pipe,
two records, or a record that does not fit the check is "tampered"; the helper never
unpickles or imports what a child wrote. The items' hidden keys (never the run's seed:
``seed.hidden_keys``) are pinned in the checks' context (``guard.CONTEXT``, ``keys``) before any child forks (``_pin_keys``). For an item whose content is judged against a
grader-only key (``Item.target``), the judge hands back the answer as a plain value; the
key itself never enters a process that ran student code (``pipeline.TrustedChecks`` judges
it). The child's stdout and stderr go nowhere; a child that hangs is killed at the timeout,
one that dies (``os._exit``) before its record fails its item. Python cannot sandbox code
in its own process: ``labgrader.audit`` flags the ways around this for a trainer.
"""
from __future__ import annotations

import ast
import asyncio
import importlib
import inspect
import json
import multiprocessing as mp
import os
import re
import select
import struct
import subprocess
import sys
import time
import types
from dataclasses import dataclass
from typing import Callable

from labsupport.exercises.guard import Tampered

from . import syscalls
from .fingerprint import Watch, changed, fingerprint


@dataclass(frozen=True)
class Item:
    grade_id: str     # the test cell's id, e.g. "ex02_1_test"
    answer: str       # the student's answer cell, as plain Python (``cellcode``)
    test: str         # the test cell source, from the gradebook (hidden tests included)
    target: str | None = None  # keyed items: the name whose value goes back for the key


def check_module(answer_id: str) -> str | None:
    """The module of the check of ``answer_id`` (or of its test cell, ``…_test``), from the
    exercise table: ``ex02_4`` -> ``labsupport.exercises.ex02_faults``; None when unknown."""
    from labsupport.exercises.registry import EXERCISES
    entry = EXERCISES.get(answer_id.removesuffix("_test"))
    return entry.check_module if entry else None


def _python(source: str) -> str:
    return "\n".join("" if re.match(r"\s*[%!]", line) else line for line in source.splitlines())


def _exec(source: str, ns: dict, name: str) -> None:
    code = compile(_python(source), name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(code, ns)  # noqa: S307 - the code under grading, in a throw-away child
    if inspect.iscoroutine(result):
        asyncio.run(result)


def _send(fd: int, message: dict) -> None:
    """One frame on the result pipe: 4-byte length, then JSON (never pickle: the reader
    is the judge, and the bytes come from a process where a student's code ran)."""
    data = json.dumps(message, allow_nan=False).encode()
    data = struct.pack("!I", len(data)) + data
    while data:
        data = data[os.write(fd, data):]


def test_names(test: str) -> list[str]:
    """The names a test cell reads (a check's call reads the check and the student's answer,
    e.g. ``Batcher``)."""
    try:
        tree = ast.parse(_python(test))
    except SyntaxError:
        return []
    return sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                   and isinstance(n.ctx, ast.Load)})


def _child(item: Item, fd: int) -> None:
    """In the forked child: genuine checks bound first, then the student's cell, then the
    test, recording what each call of the student's code gave back (``tape.Tape``); the
    record goes to the judge, which decides."""
    null = os.open(os.devnull, os.O_RDWR)
    for n in (0, 1, 2):
        os.dup2(null, n)
    from labsupport.exercises import guard
    from labsupport.exercises.plain import describe_error
    from . import tripwire, wire
    from .tape import Tape
    answer_id = item.grade_id.removesuffix("_test")
    genuine = _genuine_checks()
    wire_ = tripwire.Tripwire(on_hit=lambda ex, ref: _send(fd, {"kind": "hit", "ex": ex, "ref": ref}))
    tape, watch = Tape(), Watch(wire_, check_module(answer_id))
    guard.set_grading(tape=tape, watch=watch, on_limit=lambda message: (
        _send(fd, {"kind": "limit", "message": message}), os._exit(0)))
    watch.start()
    syscalls.load(fd)  # from here on the kernel stops a new process or a moved channel
    _guard_tracing(fd, guard, tripwire)
    wire_.cover_raw_threads()
    before = fingerprint()
    ns: dict = {"__name__": "__main__"}
    status, message = "pass", ""
    try:
        with wire_(answer_id):  # the cell is the student's code too: no reference runs in it
            _exec(item.answer, ns, f"<{answer_id}>")
        touched = changed(before, fingerprint())
        if touched:
            raise Tampered("changes the grading machinery: " + ", ".join(touched[:5]))
        ns.update(genuine)  # whatever the cell bound to these names, the test calls the checks
        tape.armed = True
        _exec(item.test, ns, f"<{item.grade_id}>")
        touched = watch.touched or changed(before, fingerprint())
        if touched:
            raise Tampered("changes the grading machinery: " + ", ".join(touched[:5]))
    except Tampered as t:  # not an Exception: a check's ``except Exception`` lets it by
        status, message = "tampered", str(t.args[0] if t.args else "")
    except BaseException as exc:  # noqa: BLE001 - the judge replays it and says why
        status, message = "fail", describe_error(exc)[:500]
    names = {n: wire.encode(ns[n]) for n in {*test_names(item.test), item.target or ""}
             if n in ns and n not in genuine}
    _send(fd, {"kind": "done", "status": status, "message": message, "tape": tape.records,
               "names": names})
    os._exit(0)


FOREIGN = frozenset({"ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle",
                     "ctypes.call_function", "ctypes.cdata", "ctypes.addressof",
                     "ctypes.string_at", "ctypes.wstring_at"})  # foreign calls, raw memory


def _guard_tracing(fd: int, guard, tripwire) -> None:
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
                    _send(fd, {"kind": "tamper", "what": f"a foreign-function call ({event})"})
            finally:
                raise Tampered(f"{event}: foreign-function calls are not allowed while grading")
        if event not in ("sys.settrace", "sys.setprofile") or told:
            return
        caller = getframe(1)
        if caller.f_code not in allowed:
            told.append(event)
            _send(fd, {"kind": "tamper", "what": f"{event}() switched the grader's tracing off"})
    sys.addaudithook(hook)


def _genuine_checks() -> dict:
    """Every ``check_*`` of the loaded check modules (bound before a student's code runs)."""
    genuine = {}
    for name in sorted(n for n in sys.modules if n.startswith("labsupport.exercises.")):
        genuine.update({k: v for k, v in vars(sys.modules[name]).items() if k.startswith("check_")})
    return genuine


HIDDEN_MARK = "### BEGIN HIDDEN TESTS"  # nbgrader's marker, kept in the gradebook's test cell
HIDDEN_NOTE = " (on the hidden cases)"  # ends a verdict's message when a hidden case failed


def _phases(test: str) -> list[tuple[bool, str]]:
    """The test cell's visible part, then its hidden part (from nbgrader's marker on); the
    hidden part keeps its line numbers."""
    lines = test.splitlines()
    at = next((i for i, line in enumerate(lines) if line.strip() == HIDDEN_MARK), len(lines))
    return [(False, "\n".join(lines[:at])), (True, "\n" * at + "\n".join(lines[at:]))]


def _scrubbed(data):
    """A record (wire data) with every exception the student's code raised or returned
    without its arguments, and one of the student's own classes reduced to its builtin
    base: on a hidden case, a message or a class name the student's code made (it could
    carry the case) never reaches a verdict."""
    if type(data) is list:
        return [_scrubbed(x) for x in data]
    if type(data) is not dict:
        return data
    if "e" in data:
        from . import wire
        base, (home, qualname) = str(data.get("base")), (str(x) for x in list(data["e"])[:2])
        if not (home.startswith(wire.EXCEPTION_HOMES) and wire.genuine_class(home, qualname)):
            home, qualname = "builtins", base  # the student's own class: not even its name
        return {"e": [home, qualname], "base": base, "args": []}
    return {k: _scrubbed(v) for k, v in data.items()}


def judge(item: Item, done: dict, genuine: dict) -> tuple[str, str, object]:
    """In the helper, where no student code ever ran: the item's test cell again, with the
    genuine checks and the student's calls read back from the child's record. The verdict
    comes from here, never from the child: (status, message, keyed answer)."""
    from labsupport.exercises import guard
    from labsupport.exercises.plain import describe_error, plain
    from . import wire
    from .tape import Tape, TapeMismatch
    answer_id = item.grade_id.removesuffix("_test")
    try:
        names = {str(k): wire.decode(v) for k, v in dict(done["names"]).items()}
        tape = Tape(list(done["tape"]))
    except (wire.WireError, TypeError, ValueError, KeyError, RecursionError, MemoryError) as err:
        return "tampered", f"its record cannot be read ({type(err).__name__})", None
    ns = {"__name__": "__main__", **{k: v for k, v in names.items() if k not in genuine}, **genuine}
    hidden = False
    with guard.grading(tape=tape, watch=None):
        try:
            for hidden, part in _phases(item.test):
                if hidden:  # from here on, what the student's code raised carries no text of its own
                    tape.records = [_scrubbed(r) for r in tape.records]
                _exec(part, ns, f"<{item.grade_id}>")
            if not tape.finished():
                raise TapeMismatch(f"{answer_id}: the record holds more calls than the check makes")
        except TapeMismatch as err:
            return "tampered", f"its record does not fit the check ({err})", None
        except BaseException as exc:  # noqa: BLE001 - the check's verdict on the student's answers
            return "fail", describe_error(exc)[:500] + (HIDDEN_NOTE if hidden else ""), None
    if item.target is None:
        return "pass", "", None
    try:
        value = plain(answer_id, names.get(item.target), f"your answer {item.target}")
    except AssertionError as err:
        return "fail", describe_error(err)[:500], None
    if type(value) not in (str, bool, int, float):
        return "fail", f"{answer_id}: answer with a plain str, bool or number", None
    return "pass", "", value


PREIMPORT = ("labsupport", "numpy", "math", "statistics", "asyncio", "collections")  # no side effects


def imported_modules(source: str) -> list[str]:
    """The modules a cell imports (``import a.b``, ``from a.b import c``) that the helper may
    import before forking: the lab's and a few standard ones, never a student's choice."""
    try:
        tree = ast.parse(_python(source))
    except SyntaxError:
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    return [n for n in dict.fromkeys(names) if n.split(".")[0] in PREIMPORT]


def preimport(items: list[Item]) -> None:
    """Import, once, the check modules, the modules of the items' reference implementations
    (the tripwire knows their code) and what the cells import: every forked child then starts
    with them loaded instead of importing them again (torch for 06: ~2 s)."""
    from labsupport.exercises import guard, plain  # noqa: F401
    from . import tape, tripwire  # noqa: F401
    for i in items:
        tripwire.load_reference_modules(i.grade_id.removesuffix("_test"))
    wanted = [check_module(i.grade_id) for i in items]
    for i in items:
        wanted += imported_modules(i.answer) + imported_modules(i.test)
    for name in dict.fromkeys(wanted):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the item's own cell then reports it
            pass


def _pin_keys(keys: dict) -> None:
    """Pin the items' hidden keys (``seed.hidden_keys``: never the run's seed) in the checks'
    context (``guard.CONTEXT.keys``) before any child forks: a student's cell that sets
    ``LAB_GRADER_SEED`` or ``LAB_HIDDEN_KEYS`` (to meet hidden cases they drew and answered
    at home) changes nothing, and one that swaps the context changes the fingerprint. An
    exercise without a key gets fresh entropy: its hidden cases are never predictable."""
    from labsupport.exercises import guard
    for name in (guard.GRADER_SEED_ENV, guard.HIDDEN_KEYS_ENV):
        os.environ.pop(name, None)
    guard.set_grading(secret=None,
                      keys=types.MappingProxyType({str(k): str(v) for k, v in dict(keys).items()}))


MAX_RECORD = 64 << 20  # bytes one child may hand back


def _frames(data: bytes) -> list | None:
    """The JSON messages in ``data`` (length-prefixed), or None if it is not only those."""
    out, at = [], 0
    while at < len(data):
        if len(data) - at < 4:
            return None
        (n,) = struct.unpack("!I", data[at:at + 4])
        body = data[at + 4:at + 4 + n]
        if len(body) != n:
            return None
        try:
            msg = json.loads(body)
        except (ValueError, RecursionError):
            return None
        if type(msg) is not dict:
            return None
        out.append(msg)
        at += 4 + n
    return out


def _collect(fd: int, proc, timeout_s: float) -> tuple[bytes, bool]:
    """Everything the child writes on its pipe until it closes (or the child is gone and
    the pipe is quiet); (bytes, timed out)."""
    buf, deadline = bytearray(), time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return bytes(buf), True
        ready, _, _ = select.select([fd], [], [], min(left, 0.2))
        if ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return bytes(buf), False
            if len(buf) + len(chunk) > MAX_RECORD:
                return bytes(buf + chunk[:1]), False
            buf += chunk
        elif not proc.is_alive():  # exited; a process it left may hold the pipe open
            return bytes(buf), False


def _verdict(item: Item, data: bytes, timed_out: bool, exitcode, timeout_s: float,
             genuine: dict) -> tuple[str, str, object]:
    msgs = _frames(data) if len(data) <= MAX_RECORD else None
    if msgs is None:
        return "tampered", "wrote something other than the grader's record on its result pipe", None
    done = [m for m in msgs if m.get("kind") == "done"]
    tamper = [str(m.get("what")) for m in msgs if m.get("kind") == "tamper"]
    if tamper:  # sent the moment it happened
        return "tampered", tamper[0][:500], None
    hits = sorted({str(m.get("ref")) for m in msgs if m.get("kind") == "hit"})
    if hits:  # sent the moment the reference ran, before the student's code went on
        return "reference", ("the lab's own implementation ran while your code did: "
                             + ", ".join(hits))[:400], None
    if syscalls.broke_rules(exitcode):  # the kernel's seccomp filter ended it
        return "tampered", ("started a new process (fork, spawn, exec) or moved the grader's "
                            "result channel: the system stopped it"), None
    limit = [str(m.get("message")) for m in msgs if m.get("kind") == "limit"]
    if limit:  # the step limit ended the child at once
        return "fail", ("TooManySteps: " + limit[0])[:500], None
    if len(done) > 1:
        return "tampered", "handed back more than one result", None
    if timed_out:  # a record and then a hang: the record was not the grader's last word
        return "fail", f"did not finish within {timeout_s:g} s", None
    if not done:
        return "fail", f"its process died (exit code {exitcode})", None
    if done[0].get("status") == "tampered":
        return "tampered", str(done[0].get("message"))[:500], None
    return judge(item, done[0], genuine)


def _serve(items: list[Item], timeout_s: float, keys: dict | None = None) -> dict[str, tuple]:
    """In the helper process: import the checks once, one child per item, and judge each
    child's record here (hidden cases from ``keys``: exercise id -> key)."""
    syscalls.prepare()  # looks up its libraries with ldconfig: before any child
    preimport(items)
    _pin_keys(keys or {})
    genuine = _genuine_checks()
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    out = {}
    for item in items:
        rfd, wfd = os.pipe()
        proc = ctx.Process(target=_child, args=(item, wfd), daemon=True)
        proc.start()
        os.close(wfd)
        data, timed_out = _collect(rfd, proc, timeout_s)
        os.close(rfd)
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        try:
            status, message, answer = _verdict(item, data, timed_out, proc.exitcode, timeout_s, genuine)
        except Exception as err:  # noqa: BLE001 - one item's record never stops the others
            status, message, answer = "tampered", f"its record broke the judge ({type(err).__name__})", None
        out[item.grade_id] = (status, message, answer if type(answer) in (str, bool, int, float) else None)
    return out


Runner = Callable[[list, str, float, dict], tuple]  # (argv, stdin, timeout_s, env) -> (rc, out, err)


def _subprocess(argv: list, stdin: str, timeout_s: float, env: dict) -> tuple[int, str, str]:
    from .seed import without_seed
    full = without_seed({**os.environ, **env})  # the run's seed stays with the grader
    full.pop("LAB_KEYS_DIR", None)  # the key stays with the grader
    proc = subprocess.run(argv, input=stdin, text=True, env=full, capture_output=True,
                          timeout=timeout_s)
    return proc.returncode, proc.stdout, proc.stderr


def run_items(items: list[Item], timeout_s: float = 60.0,
              run: Runner | None = None) -> dict[str, tuple]:
    """grade_id -> (status, message, answer), from a fresh helper process (started by
    ``run``: the grading sandbox's ``Box.run``; a plain subprocess by default). ``status``:
    "pass", "fail", "tampered" (the grading machinery changed) or "reference" (the lab's own
    implementation ran); ``answer``: a keyed item's plain answer (else None)."""
    if not items:
        return {}
    from .seed import hidden_keys
    job = json.dumps({"timeout_s": timeout_s,
                      "keys": hidden_keys(i.grade_id.removesuffix("_test") for i in items),
                      "items": [{"grade_id": i.grade_id, "answer": i.answer, "test": i.test,
                                 "target": i.target} for i in items]})
    budget = timeout_s * len(items) + 120
    rc, out, err = (run or _subprocess)([sys.executable, "-P", "-m", __name__], job, budget,
                                        {"MPLBACKEND": "Agg", "LAB_AUTOGRADE": "1"})
    if READY not in out.splitlines():
        raise GradingEnvironmentError(
            f"the trusted pass could not start in the grading box (exit code {rc}): "
            f"{(err.strip() or out.strip())[-600:] or 'no output'}")
    lines = [ln for ln in out.splitlines() if ln.startswith('{"results"')]
    if rc or not lines:
        raise RuntimeError(f"trusted grading helper failed ({rc}): {err[-1500:]}")
    return {k: tuple(v) for k, v in json.loads(lines[-1])["results"].items()}


READY = '{"ready": true}'  # the helper's first line: it started and imported the lab


class GradingEnvironmentError(RuntimeError):
    """The grading box cannot run the lab (the package not importable there, a venv outside
    the folders the box shows, no python): nothing of a student's ran yet, and no grade
    may be written."""


def main() -> int:
    import ctypes
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no child opens our /proc/<pid>/fd
    from labsupport.exercises import guard, plain  # noqa: F401 - the lab imports
    from . import tripwire, wire  # noqa: F401
    sys.stdout.write(READY + "\n")  # before any student code: a crash after this is theirs
    sys.stdout.flush()
    job = json.loads(sys.stdin.read())
    items = [Item(**i) for i in job["items"]]
    results = _serve(items, float(job["timeout_s"]), job.get("keys"))  # children cannot write to our stdout
    sys.stdout.write(json.dumps({"results": results}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
