"""The trusted grading pass: each answer cell alone, against checks it cannot replace.

``run_items(items)`` starts one helper process (``python -m labsupport.grading.trusted``,
JSON on stdin and stdout). It imports the check modules, then forks one child per item:
the child binds the genuine ``check_*`` functions, arms the reference tripwire
(``exercises.tripwire.Tripwire``: the lab's own implementation of the exercise must not
run while the student's code does) and fingerprints the grading machinery *before* the
student's answer cell runs, runs the cell alone (as ``tests/adapters.py`` does), then the
item's test cell with the genuine checks, and compares the fingerprint again (and, cheaply,
after every call of the student's code: ``_Watch``); the tripwire is armed while the answer
cell runs too (a table computed there with the reference). The run's secret is pinned in
``guard.SECRET`` before any child forks (``_fix_secret``). For an item
whose content is judged against a grader-only key (``Item.target``), the child hands back
the answer as a plain value; the key itself never enters a process that ran student code
(``pipeline.TrustedChecks`` judges it). The child's stdout and stderr go nowhere, so a
printed "pass" means nothing; a child that hangs is killed at the timeout, one that dies
(``os._exit``) fails its item. Python cannot sandbox code in its own process:
``labsupport.grading.audit`` flags the ways around this for a trainer.
"""
from __future__ import annotations

import ast
import asyncio
import contextlib
import importlib
import inspect
import json
import multiprocessing as mp
import os
import re
import secrets
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable

PROTECTED = ("labsupport", "builtins", "numpy", "math", "statistics")  # asyncio changes itself


@dataclass(frozen=True)
class Item:
    grade_id: str     # the test cell's id, e.g. "ex02_1_test"
    answer: str       # the student's answer cell, as plain Python (``cellcode``)
    test: str         # the test cell source, from the gradebook (hidden tests included)
    target: str | None = None  # keyed items: the name whose value goes back for the key


def check_module(answer_id: str) -> str:
    """``ex02_1`` -> ``labsupport.exercises.ex02`` (the conventions' naming)."""
    return f"labsupport.exercises.{answer_id.split('_')[0]}"


def _shape(v) -> tuple:
    """What may not change about one module attribute while a student's code runs."""
    if inspect.isfunction(v):
        cells = tuple(id(c.cell_contents) if c.cell_contents is not None else 0
                      for c in (v.__closure__ or ()) if _filled(c))
        return (id(v), id(v.__code__), id(v.__defaults__), id(v.__kwdefaults__),
                id(v.__globals__), cells)
    if isinstance(v, type):
        return (id(v), tuple(sorted((k, id(x)) for k, x in vars(v).items()
                                    if k not in ("__dict__", "__weakref__"))))
    if isinstance(v, dict):
        return (id(v), tuple(sorted((str(k), id(x)) for k, x in v.items())))
    if isinstance(v, (list, tuple, set, frozenset)):
        return (id(v), tuple(id(x) for x in v))
    return (id(v),)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False


def fingerprint() -> dict[str, tuple]:
    """Ids of everything the checks rely on: protected modules' attributes, sys.modules."""
    fp: dict[str, tuple] = {}
    for name, mod in list(sys.modules.items()):
        if mod is None or not name.split(".")[0] in PROTECTED:
            continue
        fp[f"sys.modules[{name!r}]"] = (id(mod), id(getattr(mod, "__dict__", None)))
        deep = name.startswith(("labsupport", "builtins"))
        for k, v in list(vars(mod).items()):
            fp[f"{name}.{k}"] = _shape(v) if deep else (id(v),)
    return fp


def changed(before: dict, after: dict) -> list[str]:
    """Keys whose value changed or vanished (new keys — lazy imports — are fine)."""
    return sorted(k for k, v in before.items() if after.get(k) != v)


def _python(source: str) -> str:
    return "\n".join("" if re.match(r"\s*[%!]", line) else line for line in source.splitlines())


def _exec(source: str, ns: dict, name: str) -> None:
    code = compile(_python(source), name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(code, ns)  # noqa: S307 - the code under grading, in a throw-away child
    if inspect.iscoroutine(result):
        asyncio.run(result)


def _child(item: Item, conn) -> None:
    """In the forked child: genuine checks bound first, then the student's cell, then the test."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    from labsupport.exercises import guard, tripwire
    from labsupport.exercises.plain import describe_error, plain
    answer_id = item.grade_id.removesuffix("_test")
    genuine = {}
    for name in sorted(n for n in sys.modules if n.startswith("labsupport.exercises.")):
        genuine.update({k: v for k, v in vars(sys.modules[name]).items() if k.startswith("check_")})
    wire = tripwire.Tripwire()
    watch = _Watch(wire, guard, check_module(answer_id))
    before = fingerprint()
    ns: dict = {"__name__": "__main__"}
    try:
        with wire(answer_id):  # the cell is the student's code too: no reference runs in it
            _exec(item.answer, ns, f"<{answer_id}>")
        touched = changed(before, fingerprint())
        if touched:
            raise _Tampered(touched)
        ns.update(genuine)  # whatever the cell bound to these names, the test calls the checks
        _exec(item.test, ns, f"<{item.grade_id}>")
        touched = watch.touched or changed(before, fingerprint())
        if touched:
            raise _Tampered(touched)
        if wire.hits:
            conn.send(("reference", "the lab's own implementation ran while your code did: "
                       + ", ".join(sorted({ref for _, ref in wire.hits}))[:400], None))
        elif item.target is not None:
            value = plain(answer_id, ns.get(item.target), f"your answer {item.target}")
            if type(value) not in (str, bool, int, float):
                raise AssertionError(f"{answer_id}: answer with a plain str, bool or number")
            conn.send(("pass", "", value))
        else:
            conn.send(("pass", "", None))
    except _Tampered as t:
        conn.send(("tampered", "changes the grading machinery: " + ", ".join(t.args[0][:5]), None))
    except BaseException as exc:  # noqa: BLE001 - anything the student's code raises fails it
        conn.send(("fail", describe_error(exc)[:500], None))
    conn.close()
    os._exit(0)


class _Tampered(BaseException):  # not an Exception: a check's ``except Exception`` lets it by
    pass


def watched_modules(check: str) -> set[str]:
    """What the check module ``check`` reads while it decides: itself, builtins, the check
    helpers it uses (``labsupport.exercises.*``, followed through), and every protected
    module their names come from (``shapes`` in ``shapes.bucket_of``, numpy, the module of
    a function imported by name)."""
    names, todo = {"builtins"}, [check, "labsupport.exercises.guard", "labsupport.exercises.plain"]
    while todo:
        n = todo.pop()
        if n in names or n not in sys.modules:
            continue
        names.add(n)
        if not n.startswith("labsupport.exercises"):
            continue
        for v in list(vars(sys.modules[n]).values()):
            origin = v.__name__ if isinstance(v, type(sys)) else getattr(v, "__module__", None)
            if isinstance(origin, str) and origin.split(".")[0] in PROTECTED:
                todo.append(origin)
    return names


def quick_fingerprint(modules: set[str]) -> dict[tuple[str, str], tuple]:
    """``fingerprint`` of ``modules``, cheaply: each attribute's id, with its code for a
    function and its attributes' ids for a class (numpy's: ids only). Taken after every
    call of the student's code (``_Watch``)."""
    fp: dict[tuple[str, str], tuple] = {}
    for name in modules:
        mod = sys.modules.get(name)
        if mod is None:
            continue
        deep = name.startswith("labsupport") or name == "builtins"
        for k, v in list(vars(mod).items()):
            if not deep:
                fp[name, k] = (id(v),)
            elif type(v) is type(_fix_secret):
                fp[name, k] = (id(v), id(v.__code__))
            elif isinstance(v, type):
                fp[name, k] = (id(v), *map(id, vars(v).values()))
            else:
                fp[name, k] = (id(v),)
    return fp


class _Watch:
    """``guard.WATCH`` in the child: the reference tripwire around each call of the
    student's code, and the grading machinery compared after each call returns. A function
    that patches what the check compares with, for the check to see after the call, and
    undoes it on a later call (so the fingerprint after the test sees nothing) shows here."""

    def __init__(self, wire, guard, check: str):
        self.wire, self.touched = wire, []
        guard.WATCH = self
        self._modules = watched_modules(check)
        self._before = quick_fingerprint(self._modules)

    @contextlib.contextmanager
    def __call__(self, ex: str):
        try:
            with self.wire(ex):
                yield
        finally:
            touched = changed(self._before, quick_fingerprint(self._modules))
            if touched and not self.touched:
                self.touched = [".".join(k) for k in touched]
        if self.touched:
            raise _Tampered(self.touched)


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
    from labsupport.exercises import guard, plain, tripwire  # noqa: F401
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


def _fix_secret() -> None:
    """Move the run's secret from the environment into ``guard.SECRET`` before any child
    forks: a student's cell that sets ``LAB_GRADER_SEED`` to a seed of their choice (to meet
    hidden cases they drew and answered at home) changes nothing, and one that rebinds
    ``guard.SECRET`` changes the fingerprint. Without a secret, a fresh one: the hidden cases
    are never predictable."""
    from labsupport.exercises import guard
    guard.SECRET = os.environ.pop(guard.GRADER_SEED_ENV, None) or secrets.token_hex(16)


def _serve(items: list[Item], timeout_s: float) -> dict[str, tuple]:
    """In the helper process: import the checks once, one child per item."""
    preimport(items)
    _fix_secret()
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    out = {}
    for item in items:
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(item, send), daemon=True)
        proc.start()
        send.close()
        got = recv.poll(timeout_s)
        result = None
        if got:
            try:
                result = recv.recv()
            except (EOFError, OSError):
                result = None
        if not got:
            proc.kill()
            result = ("fail", f"did not finish within {timeout_s:g} s", None)
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        if result is None:
            result = ("fail", f"its process died (exit code {proc.exitcode})", None)
        out[item.grade_id] = (str(result[0]), str(result[1]), _answer(result))
        recv.close()
    return out


Runner = Callable[[list, str, float, dict], tuple]  # (argv, stdin, timeout_s, env) -> (rc, out, err)


def _answer(result) -> str | bool | int | float | None:
    """The plain answer a child handed back (anything else: None)."""
    value = result[2] if len(result) > 2 else None
    return value if type(value) in (str, bool, int, float) else None


def _subprocess(argv: list, stdin: str, timeout_s: float, env: dict) -> tuple[int, str, str]:
    full = {**os.environ, **env}
    full.pop("LAB_GRADER_DIR", None)  # the key stays with the grader
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
    from .seed import grader_env
    job = json.dumps({"timeout_s": timeout_s,
                      "items": [{"grade_id": i.grade_id, "answer": i.answer, "test": i.test,
                                 "target": i.target} for i in items]})
    budget = timeout_s * len(items) + 120
    rc, out, err = (run or _subprocess)([sys.executable, "-m", __name__], job, budget,
                                        {"MPLBACKEND": "Agg", "LAB_AUTOGRADE": "1", **grader_env()})
    lines = [ln for ln in out.splitlines() if ln.startswith('{"results"')]
    if rc or not lines:
        raise RuntimeError(f"trusted grading helper failed ({rc}): {err[-1500:]}")
    return {k: tuple(v) for k, v in json.loads(lines[-1])["results"].items()}


def main() -> int:
    import ctypes
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no child opens our /proc/<pid>/fd
    job = json.loads(sys.stdin.read())
    items = [Item(**i) for i in job["items"]]
    results = _serve(items, float(job["timeout_s"]))  # children cannot write to our stdout
    sys.stdout.write(json.dumps({"results": results}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
