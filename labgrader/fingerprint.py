"""What may not change while a student's code runs in the trusted pass: the ids of the
grading machinery (``fingerprint``: every protected module; ``quick_fingerprint``: what one
check reads), compared before and after (``changed``), and after every call of the student's
code (``Watch``, the checks' context's ``watch`` there, which arms the reference tripwire
too)."""
from __future__ import annotations

import contextlib
import inspect
import sys
import types

from labsupport.exercises.guard import GradingContext, Tampered

PROTECTED = ("labsupport", "labgrader", "builtins", "numpy", "math", "statistics")  # asyncio changes itself
CACHES = frozenset({"labgrader.wire._STAND_INS", "labgrader.wire._OPAQUE"})  # grow as records
#                                                 are decoded: only the dict itself may not change


def _context(v: GradingContext) -> tuple:
    """The checks' context: frozen, but ``object.__setattr__`` reaches its fields."""
    return (id(v), id(v.secret), id(v.keys), id(v.tape), id(v.watch), id(v.on_limit),
            id(v.on_reference))


def _shape(v) -> tuple:
    """What may not change about one module attribute while a student's code runs."""
    if type(v) is GradingContext:
        return _context(v)
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
        deep = name.startswith(("labsupport", "labgrader", "builtins"))
        for k, v in list(vars(mod).items()):
            key = f"{name}.{k}"
            fp[key] = _shape(v) if deep and key not in CACHES else (id(v),)
    return fp


def changed(before: dict, after: dict) -> list[str]:
    """Keys whose value changed or vanished (new keys — lazy imports — are fine)."""
    return sorted(k for k, v in before.items() if after.get(k) != v)


def watched_modules(check: str) -> set[str]:
    """What the check module ``check`` reads while it decides: itself, builtins, the check
    helpers it uses (``labsupport.exercises.*``, followed through), and every protected
    module their names come from (``shapes`` in ``shapes.bucket_of``, numpy, the module of
    a function imported by name)."""
    names, todo = {"builtins"}, [check, "labsupport.exercises.guard", "labsupport.exercises.plain",
                                  "labgrader.tape", "labgrader.wire"]
    while todo:
        n = todo.pop()
        if n in names or n not in sys.modules:
            continue
        names.add(n)
        if not n.startswith(("labsupport.exercises", "labgrader.tape", "labgrader.wire")):
            continue
        for v in list(vars(sys.modules[n]).values()):
            origin = v.__name__ if isinstance(v, type(sys)) else getattr(v, "__module__", None)
            if isinstance(origin, str) and origin.split(".")[0] in PROTECTED:
                todo.append(origin)
    return names


def quick_fingerprint(modules: set[str]) -> dict[tuple[str, str], tuple]:
    """``fingerprint`` of ``modules``, cheaply: each attribute's id, with its code for a
    function and its attributes' ids for a class (numpy's: ids only). Taken after every
    call of the student's code (``Watch``)."""
    fp: dict[tuple[str, str], tuple] = {}
    for name in modules:
        mod = sys.modules.get(name)
        if mod is None:
            continue
        deep = name.startswith(("labsupport", "labgrader")) or name == "builtins"
        for k, v in list(vars(mod).items()):
            if not deep:
                fp[name, k] = (id(v),)
            elif type(v) is types.FunctionType:
                fp[name, k] = (id(v), id(v.__code__))
            elif isinstance(v, type):
                fp[name, k] = (id(v), *map(id, vars(v).values()))
            elif type(v) is GradingContext:
                fp[name, k] = _context(v)
            else:
                fp[name, k] = (id(v),)
    return fp


class Watch:
    """The checks' context's ``watch`` in the child: the reference tripwire around each call
    of the student's code, and the grading machinery compared after each call returns. A
    function that patches what the check compares with, for the check to see after the
    call, and undoes it on a later call (so the fingerprint after the test sees nothing)
    shows here. ``start()`` takes what it compares with, once the context is in place."""

    def __init__(self, wire, check: str):
        self.wire, self.touched = wire, []
        self._modules = watched_modules(check)
        self._before: dict = {}

    def start(self) -> None:
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
            raise Tampered("changes the grading machinery: " + ", ".join(self.touched[:5]))
