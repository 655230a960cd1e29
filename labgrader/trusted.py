"""The trusted grading pass: each answer cell alone, against checks it cannot replace,
judged in a process where no student code ever runs.

``run_items(items)`` starts one judge process (``python -P -m labgrader.trusted``, JSON on
stdin and stdout, in the grading box). The judge imports the genuine checks, pins the
items' hidden keys (never the run's seed: ``seed.hidden_keys``) and starts the student
process (``StudentProcess``: ``labgrader.student``, exec'd fresh, so none of the judge's
memory is in it). Per item, the student process forks a child that imports the lab from a
package view where the item's references are stubs (``view``), runs the answer cell under
seccomp and the tripwire, and then only answers: the judge runs the test cell (``judge``),
and each call the check makes of the student's code (``guard.student``, ``bounded``,
``driver``) is sent to the child (``tape.Remote``) and its recorded outcome read back as
plain values (``wire``). The cases, the expected values and the keys never leave the judge;
the child's frames are JSON, read strictly (``_Channel``), never unpickled. A stub called, a
tracing switched off, a changed grading machinery, the step limit, a new process (the
kernel's filter kills the child) end the item at once. For an item whose content is judged
against a grader-only key (``Item.target``), the judge hands back the answer as a plain
value; the key itself stays in ``pipeline.TrustedChecks``.
"""
from __future__ import annotations

import ast
import base64
import contextlib
import importlib
import json
import pickle
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from labsupport.exercises.partial import PartialScore, share as partial_share

from . import codewatch, syscalls
from .cellcode import run_cell, without_magics


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


def test_names(test: str) -> list[str]:
    """The names a test cell reads (a check's call reads the check and the student's answer,
    e.g. ``Batcher``)."""
    try:
        tree = ast.parse(without_magics(test))
    except SyntaxError:
        return []
    return sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                   and isinstance(n.ctx, ast.Load)})


def _genuine_checks() -> dict:
    """Every ``check_*`` of the loaded check modules (bound before a student's code runs)."""
    genuine = {}
    for name in sorted(n for n in sys.modules if n.startswith("labsupport.exercises.")):
        genuine.update({k: v for k, v in vars(sys.modules[name]).items() if k.startswith("check_")})
    return genuine


HIDDEN_MARK = "### BEGIN HIDDEN TESTS"  # nbgrader's marker, kept in the gradebook's test cell
HIDDEN_NOTE = " (on the hidden cases)"  # ends a verdict's message when a hidden case failed
HIDDEN_ERROR = "HiddenCaseFailed"  # the name a failed hidden case's verdict shows, whatever was raised
HIDDEN_FAIL = ("your answer passes the visible cases but not every hidden one (new ones are "
               "drawn each run): try it on more inputs of your own, edge cases included")


def _hidden_verdict(exc: BaseException, item) -> str:
    """A failed hidden case's verdict, in the lab's words only: the check's own message when
    it says nothing the student's code chose (a ``PartialScore``'s numbers, a
    ``guard.LabWords``), else ``HIDDEN_FAIL``. The student's code knew the hidden cases
    then, and a value it returned, a dict key on a path, a frame it forged or the class of an
    exception it raised (redteam15: one of 700 names, 9 bits) would carry them into the
    feedback (redteam13, redteam14), so the error's name is fixed too (``HIDDEN_ERROR``)."""
    from labsupport.exercises import guard
    args = BaseException.__dict__["args"].__get__(exc)
    text = args[0] if len(args) == 1 and type(args[0]) is str else ""  # a record's: none
    if text and type(exc) in (PartialScore, guard.LabWords):
        name = "PartialScore" if type(exc) is PartialScore else "AssertionError"
        return f"{name}: {text}"[:500] + HIDDEN_NOTE
    ex = item.grade_id.removesuffix("_test")
    return f"{HIDDEN_ERROR}: {ex}: {HIDDEN_FAIL}{HIDDEN_NOTE}"


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


class _Channel:
    """The judge's end of one item's channel: frames from the student process (JSON only,
    ``MAX_RECORD`` at most), each read by its deadline."""

    def __init__(self, sock, deadline: float, timeout_s: float, on_code=None):
        self.fd, self.deadline, self.timeout_s = sock.fileno(), deadline, timeout_s
        self.buf = bytearray()
        self.on_code = on_code  # source (bytes) compiled in the child -> None, or Stop

    def send(self, data: bytes) -> None:
        from .student import send_bytes
        try:
            send_bytes(self.fd, data)
        except OSError:
            raise Stop("died", "") from None

    def _fill(self, n: int) -> None:
        while len(self.buf) < n:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise Stop("fail", f"did not finish within {self.timeout_s:g} s")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 1 << 16)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise Stop("died", "")
                self.buf += chunk

    def frame(self) -> dict:
        """The next message; ``Stop`` for one that ends the item (a reference called or
        copied, the machinery changed, the step limit) or is not the grader's. Code the
        child compiled (``codewatch``) goes to ``on_code`` on the way."""
        while True:
            self._fill(4)
            (n,) = struct.unpack("!I", self.buf[:4])
            if n > MAX_RECORD:
                raise Stop("tampered", "wrote something other than the grader's record on its channel")
            self._fill(4 + n)
            body, self.buf = bytes(self.buf[4:4 + n]), self.buf[4 + n:]
            if not body.startswith(codewatch.CODE):
                break
            if self.on_code is not None:
                self.on_code(body[1:])
        try:
            msg = json.loads(body)
        except (ValueError, RecursionError):
            msg = None
        if type(msg) is not dict:
            raise Stop("tampered", "wrote something other than the grader's record on its channel")
        kind = msg.get("kind")
        if kind == "hit":  # sent the moment the reference was reached
            raise Stop("reference", ("the lab's own implementation ran while your code did: "
                                     + str(msg.get("ref")))[:400])
        if kind == "tamper":
            raise Stop("tampered", str(msg.get("what"))[:500])
        if kind == "limit":  # the step limit ended the call at once (the lab's words: the
            #                  frame is the child's, which the student's code can write)
            raise Stop("fail", f"TooManySteps: your code did not finish within the grader's "
                               f"step limit: a loop that never ends?")
        return msg

    def expect(self, kind: str) -> dict:
        msg = self.frame()
        if msg.get("kind") != kind:
            raise Stop("tampered", "wrote something other than the grader's record on its channel")
        return msg

    def ask(self, request: bytes):
        """``tape.Remote``'s ``ask``: one call, its record."""
        self.send(request)
        return self.expect("call").get("record")


def _stand_ins(encoded: dict) -> tuple[dict, dict]:
    """The answer cell's names as the judge sees them: plain values decoded; the student's
    functions, classes and other objects as stand-ins of their own (a name, never their
    code), each known by id, so a request names the real one in the student process
    (``tape.Remote``). (values, id of a stand-in -> name)."""
    from . import wire
    values, ids = {}, {}
    for name, data in encoded.items():
        name = str(name)
        tag = next(iter(data), None) if type(data) is dict and len(data) == 1 else None
        if tag == "fn":
            value = types.FunctionType(wire._stand_in_function.__code__, {}, name[:80])
        elif tag == "cls":
            value = type(str(data["cls"])[:80] or "Class", (), {})
        else:
            value = wire.decode(data)
            if tag != "o":
                values[name] = value
                continue
        values[name], ids[id(value)] = value, name
    return values, ids


def judge(item: Item, chan: _Channel, genuine: dict) -> tuple[str, str, object]:
    """In the judge, where no student code ever runs: the item's test cell, with the genuine
    checks, each call of the student's code made in the student process over ``chan``
    (``tape.Remote``). Its pass or fail is the item's: (status, message, keyed answer)."""
    from labsupport.exercises import guard
    from labsupport.exercises.plain import describe_error, plain
    from . import wire
    from .tape import Remote, RequestError, TapeMismatch
    answer_id = item.grade_id.removesuffix("_test")
    answered = chan.expect("answered")
    try:
        names, ids = _stand_ins(dict(answered["names"]))
    except (wire.WireError, TypeError, ValueError, KeyError, RecursionError, MemoryError) as err:
        return "tampered", f"its record cannot be read ({type(err).__name__})", None
    remote = Remote(chan.ask, ids, scrub=_scrubbed)
    ns = {"__name__": "__main__", **{k: v for k, v in names.items() if k not in genuine}, **genuine}
    hidden = False
    with guard.grading(tape=remote, watch=None):
        try:
            for hidden, part in _phases(item.test):
                remote.hidden = hidden  # from here on, what the student's code raised carries no text of its own
                run_cell(part, ns, f"<{item.grade_id}>")
            status, message = "pass", ""
        except Stop:
            raise
        except (TapeMismatch, wire.WireError) as err:
            return "tampered", f"its record does not fit the check ({err})", None
        except RequestError as err:
            raise GradingEnvironmentError(str(err)) from None
        except BaseException as exc:  # noqa: BLE001 - the check's verdict on the student's answers
            status, message = "fail", (_hidden_verdict(exc, item) if hidden else
                                       describe_error(exc)[:500])
            if type(exc) is not PartialScore and partial_share(message) is not None:
                message = "your code raised " + message  # a share comes from the check alone
    chan.send(pickle.dumps("end"))
    chan.expect("done")  # a reference or a change it made after its last answer still shows
    if status != "pass" or item.target is None:
        return status, message, None
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
        tree = ast.parse(without_magics(source))
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
    ``LAB_GRADER_SEED`` (to meet hidden cases they drew and answered at home) changes
    nothing, and one that swaps the context changes the fingerprint. An exercise without a
    key gets fresh entropy: its hidden cases are never predictable."""
    from labsupport.exercises import guard
    os.environ.pop(guard.GRADER_SEED_ENV, None)
    guard.set_grading(secret=None,
                      keys=types.MappingProxyType({str(k): str(v) for k, v in dict(keys).items()}))


MAX_RECORD = 64 << 20  # bytes one child may hand back


class Stop(BaseException):
    """The student process ended the item: ``(status, message)`` ("died": see its exit
    code). Not an Exception: no check's ``except Exception`` holds it."""


HEAVY = ("numpy", "torch", "transformers", "matplotlib")  # what the student process imports once


LAB_STDLIB = ("asyncio", "base64", "copy", "csv", "dataclasses", "difflib", "hashlib", "hmac",
              "secrets")  # what importing the lab and the child's machinery adds to them


def preimported() -> list[str]:
    """What the student process imports once, before any view's template: the ``HEAVY``
    libraries the judge loaded and ``LAB_STDLIB``, so that each template imports only the
    lab from its view (71 → 51 ms a template). Never a module of the lab."""
    return [m for m in HEAVY if m in sys.modules] + list(LAB_STDLIB)


def _live_digests(ex: str) -> dict[str, str]:
    """What the child's tripwire looks for: the code of ``ex``'s references that stay genuine
    in its view (``view.LIVE``: a check's driver needs them). The others are stubs that report
    when called, and a copy of any is compiled where the code watch sees it: no call needs
    tracing for them (tracing every call made a simulation-heavy check 3-4x slower)."""
    from . import tripwire, view
    live = set(view.LIVE.get(ex, ()))
    return {d: r for d, r in tripwire.reference_digests(ex).items() if r in live} if live else {}


class CopyCheck:
    """In the judge, for one item: code its child compiled (``codewatch``), each source as
    Python may have read it (UTF-8, and the encoding its coding line names: a ``str`` is
    compiled ignoring it), scored alone and together with what the item compiled before
    (a copy cut in pieces); a copy of one of the exercise's references ends the item as
    "reference", code the judge cannot read (no reading parses, too deep to walk) or more of
    it than the review compares (``KEPT``) as tampering."""

    KEPT = 200_000  # characters of compiled sources the review compares, per item (the solutions: 563 at most)

    def __init__(self, ex: str):
        from collections import Counter
        self.ex, self.seen = ex, Counter()  # the fingerprints of what the item compiled
        self.sources: list[str] = []  # what it compiled, for the review (``KEPT`` at most)

    def __call__(self, source: bytes) -> None:
        import io
        import tokenize

        from .similarity import copied, read, reference_sources
        readings = []
        for encoding in ("utf-8", None):
            try:
                if encoding is None:
                    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
                text = source.decode(encoding)
                fp = read(text)
            except (SyntaxError, UnicodeDecodeError, LookupError, ValueError):
                continue
            if fp is not None and fp not in readings:
                readings.append(fp)
                if len(readings) == 1:
                    self.sources.append(text)
        if not readings:
            raise Stop("tampered", "compiled code the judge cannot read while graded")
        if sum(map(len, self.sources)) > self.KEPT:  # a copy could hide behind the rest
            raise Stop("tampered", f"compiled more than {self.KEPT:,} characters of code while "
                                   "graded: more than the copy check compares")
        for fp in readings:
            self.seen += fp
        for what in [*readings, self.seen]:
            match = copied(what, reference_sources(self.ex))
            if match is not None:
                raise Stop("reference", f"ran a copy of the lab's {match.what}, made while "
                                        f"graded (similarity {match.score:.2f})"[:400])


class StudentProcess:
    """The judge's side of ``labgrader.student``: started once (``start``), one child per
    item (``grade``), each on a channel of its own."""

    def __init__(self):
        import tempfile
        env = {k: v for k, v in os.environ.items() if k not in ("LAB_GRADER_SEED", "LAB_KEYS_DIR")}
        self.ctl, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.err = tempfile.TemporaryFile()
        self.views = tempfile.mkdtemp(prefix="lab-views-")
        self._view_now: tuple[str, Path, dict] | None = None  # (ex, folder, view.snapshot)
        self.proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "labgrader.student", str(theirs.fileno())],
            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=self.err, env=env, cwd=self.views)
        theirs.close()
        self.ctl.settimeout(120)
        try:
            self.ctl.sendall(json.dumps({"preimport": preimported()}).encode())
            ready = self.ctl.recv(1 << 16)
        except OSError:
            ready = b""
        if ready != json.dumps({"kind": "ready"}).encode():
            self.err.seek(0)
            raise GradingEnvironmentError(
                "the trusted pass's student process could not start: "
                + (self.err.read().decode(errors="replace").strip()[-600:] or "no output"))

    def grade(self, item: Item, timeout_s: float, genuine: dict) -> tuple[str, str, object]:
        import pickle

        from labsupport.paths import DATA, SHARED_DATA

        from .references import ROOT
        answer_id = item.grade_id.removesuffix("_test")
        self.copies = CopyCheck(answer_id)  # what this item compiles (``_serve`` reads it)
        here = self._view(answer_id)
        setup = {"view": str(here), "genuine": str(ROOT),
                 "env": {"LAB_DATA": str(DATA), "LAB_SHARED_DATA": str(SHARED_DATA)}}
        mine, theirs = socket.socketpair()
        socket.send_fds(self.ctl, [json.dumps(setup).encode()], [theirs.fileno()])
        theirs.close()
        started = json.loads(self.ctl.recv(1 << 16))
        if "error" in started:  # the template's, before any child: never a child's frame
            mine.close()
            raise GradingEnvironmentError(f"the trusted pass's student process: {started['error']}")
        pid = started["pid"]
        chan = _Channel(mine, time.monotonic() + timeout_s, timeout_s, on_code=self.copies)
        job = {"ex": answer_id, "answer": item.answer,
               "names": sorted({*test_names(item.test), item.target or ""} - {""}),
               "imports": [check_module(answer_id), *imported_modules(item.answer),
                           *imported_modules(item.test)],
               "digests": _live_digests(answer_id)}
        try:
            chan.send(pickle.dumps(job))
            verdict = judge(item, chan, genuine)
        except Stop as stop:
            verdict = (*stop.args, None)
        finally:
            if type(pid) is int and pid > 0:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            mine.close()
            exitcode = json.loads(self.ctl.recv(1 << 16))["exit"]
        status, message, answer = verdict
        if status == "died":
            if syscalls.broke_rules(exitcode):  # the kernel's seccomp filter ended it
                return "tampered", ("started a new process (fork, spawn, exec) or moved the "
                                    "grader's result channel: the system stopped it"), None
            return "fail", f"its process died (exit code {exitcode})", None
        return status, message, answer

    def _view(self, ex: str) -> Path:
        """``ex``'s package view: the last item's while it has the same stubs, else made from
        it (``view.rebuild``), while its files are as built (``view.unchanged``: no child
        wrote there); else a new one (``view.build``). Only one view is on disk at a time
        (another view holds genuine code this item's stubs hide)."""
        from . import view
        here = None
        if self._view_now is not None:
            was, there, taken = self._view_now
            self._view_now = None
            if view.unchanged(there, taken):
                with contextlib.suppress(OSError):
                    here = there if view.key(was) == view.key(ex) else \
                        view.rebuild(there, was, ex, Path(self.views))
            if here is None:
                shutil.rmtree(there, ignore_errors=True)
        if here is None:
            here = view.build(ex, Path(self.views))
        self._view_now = (ex, here, view.snapshot(here))
        return here

    def close(self) -> None:
        self.ctl.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.err.close()
        shutil.rmtree(self.views, ignore_errors=True)


def _serve(items: list[Item], timeout_s: float, keys: dict | None = None,
           compiled: dict | None = None) -> dict[str, tuple]:
    """In the judge: import the checks once, start the student process, and grade each item
    (hidden cases from ``keys``: exercise id -> key); ``compiled`` gets, per item, the sources
    its child compiled while graded (``CopyCheck.sources``: the review compares them too)."""
    preimport(items)
    _pin_keys(keys or {})
    genuine = _genuine_checks()
    student = StudentProcess()
    out = {}
    try:
        for item in items:
            try:
                status, message, answer = student.grade(item, timeout_s, genuine)
            except GradingEnvironmentError:
                raise
            except Exception as err:  # noqa: BLE001 - one item's record never stops the others
                status, message, answer = "tampered", f"its record broke the judge ({type(err).__name__})", None
            out[item.grade_id] = (status, message, answer if type(answer) in (str, bool, int, float) else None)
            if compiled is not None and student.copies.sources:
                compiled[item.grade_id] = student.copies.sources
    finally:
        student.close()
    return out


Runner = Callable[[list, str, float, dict], tuple]  # (argv, stdin, timeout_s, env) -> (rc, out, err)


def _subprocess(argv: list, stdin: str, timeout_s: float, env: dict) -> tuple[int, str, str]:
    from .seed import without_seed
    full = without_seed({**os.environ, **env})  # the run's seed stays with the grader
    full.pop("LAB_KEYS_DIR", None)  # the key stays with the grader
    proc = subprocess.run(argv, input=stdin, text=True, env=full, capture_output=True,
                          timeout=timeout_s)
    return proc.returncode, proc.stdout, proc.stderr


def run_items(items: list[Item], timeout_s: float = 60.0, run: Runner | None = None,
              compiled: dict | None = None, memo: dict | None = None) -> dict[str, tuple]:
    """grade_id -> (status, message, answer), from a fresh helper process (started by
    ``run``: the grading sandbox's ``Box.run``; a plain subprocess by default). ``status``:
    "pass", "fail", "tampered" (the grading machinery changed) or "reference" (the lab's own
    implementation ran); ``answer``: a keyed item's plain answer (else None). ``compiled``
    (a dict) gets grade_id -> the sources the item's child compiled while graded. ``memo``
    (a dict, ``casememo``'s name -> pickled cases): handed to the helper, and gets what the
    helper built besides."""
    if not items:
        return {}
    from .seed import hidden_keys
    job = json.dumps({"timeout_s": timeout_s,
                      "keys": hidden_keys(i.grade_id.removesuffix("_test") for i in items),
                      "memo": {k: base64.b64encode(v).decode() for k, v in (memo or {}).items()},
                      "items": [{"grade_id": i.grade_id, "answer": i.answer, "test": i.test,
                                 "target": i.target} for i in items]})
    budget = timeout_s * len(items) + 120
    from .warm import TemplateGone
    try:
        rc, out, err = (run or _subprocess)([sys.executable, "-P", "-m", __name__], job, budget,
                                            {"MPLBACKEND": "Agg", "LAB_AUTOGRADE": "1"})
    except TemplateGone as exc:  # the slot's judges cannot start: nor can any grade
        raise GradingEnvironmentError(f"the trusted pass could not start: {exc}") from exc
    if READY not in out.splitlines():
        raise GradingEnvironmentError(
            f"the trusted pass could not start in the grading box (exit code {rc}): "
            f"{(err.strip() or out.strip())[-600:] or 'no output'}")
    lines = [ln for ln in out.splitlines() if ln.startswith('{"results"')]
    if rc or not lines:
        raise RuntimeError(f"trusted grading helper failed ({rc}): {err[-1500:]}")
    got = json.loads(lines[-1])
    if compiled is not None:
        compiled.update({k: [str(s) for s in v] for k, v in got.get("compiled", {}).items()})
    if memo is not None:
        memo.update({str(k): base64.b64decode(v) for k, v in got.get("memo", {}).items()})
    return {k: tuple(v) for k, v in got["results"].items()}


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
    compiled: dict = {}
    from labsupport.exercises import casememo  # before any check: the run's cases, built once
    casememo.give({str(k): base64.b64decode(v) for k, v in job.get("memo", {}).items()})
    results = _serve(items, float(job["timeout_s"]), job.get("keys"), compiled)  # children cannot write to our stdout
    sys.stdout.write(json.dumps({"results": results, "compiled": compiled, "memo": {
        k: base64.b64encode(v).decode() for k, v in casememo.built().items()}}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
