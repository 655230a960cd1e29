"""What may not change while a student's code runs in the trusted pass's student process:
the objects of the grading machinery (``fingerprint``: every protected module), taken before
the answer cell runs and compared (``changed``) after it and after the judge's last call. The
verdict never depends on it (the check runs in the judge): a change only marks the item as
tampering, which a trainer reviews.

A fingerprint holds the objects themselves and compares them by identity (``operator.is_``,
at C speed): never ``id()``, which raises an audit event (``builtins.id``) that the child's
audit hook would hear once per attribute (~10 ms a fingerprint), and whose numbers a freed
object hands on to the next one made."""
from __future__ import annotations

import itertools
import operator
import sys
import types

from labsupport.exercises.guard import GradingContext

PROTECTED = ("labsupport", "labgrader", "builtins", "numpy", "math", "statistics")  # asyncio changes itself
DEEP = ("labsupport", "labgrader", "builtins")  # their attributes' insides too (``_shape``)
CACHES = {"labgrader.wire": frozenset({"_STAND_INS", "_OPAQUE"})}  # grow as records are
#                                 decoded: only the dict itself may not change


def _context(v: GradingContext) -> tuple:
    """The checks' context: frozen, but ``object.__setattr__`` reaches its fields."""
    return (v, v.secret, v.keys, v.tape, v.watch, v.on_limit, v.on_reference, v.checks_off)


def _shape(v) -> tuple:
    """What may not change about one module attribute while a student's code runs. Kinds
    are told by the exact type (``type(v)``), never ``isinstance``, which asks the object's
    own ``__class__`` (a property a student's object may define)."""
    kind = type(v)
    if kind is GradingContext:
        return _context(v)
    if kind is types.FunctionType:
        cells = tuple(c.cell_contents for c in (v.__closure__ or ()) if _filled(c))
        return (v, v.__code__, v.__defaults__, v.__kwdefaults__, v.__globals__, *cells)
    if issubclass(kind, type):  # its own dict, read with type's descriptor, in its order
        return (v, *itertools.chain.from_iterable(
            kv for kv in type.__dict__["__dict__"].__get__(v).items()
            if kv[0] not in ("__dict__", "__weakref__")))
    if issubclass(kind, dict):
        return (v, *itertools.chain.from_iterable(dict.items(v)))
    if kind in (list, tuple, set, frozenset):
        return (v, *v)
    return (v,)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False


_MODULE_DICT = types.ModuleType.__dict__["__dict__"].__get__  # a module's dict, whatever its class says


def _same(a: tuple, b: tuple) -> bool:
    """Same length, and the same object at every place."""
    return len(a) == len(b) and all(map(operator.is_, a, b))


def fingerprint(reuse: dict | None = None, again: tuple[str, ...] = ()) -> dict[str, tuple]:
    """Module name -> (the module, its dict, its attribute names, each attribute's shape,
    the shapes flattened), for every protected module: in ``DEEP`` modules an attribute's
    shape is ``_shape`` of it, elsewhere the attribute itself. Built at C speed where it can
    be: this runs around every item's answer cell, in a fork whose every touched page is a
    copy. ``reuse``: a fingerprint taken earlier in this process's memory (the template's,
    before the fork), whose entries stand for every module but those named in ``again``
    (changed since, by the grader itself)."""
    fp: dict[str, tuple] = {}
    modules = [(n, m) for n, m in list(sys.modules.items())
               if m is not None and n.split(".")[0] in PROTECTED]
    fresh = set(again) | {n for n, _ in modules if reuse is None or n not in reuse}
    for name in list(fresh):  # an import since sets an attribute of each package above it
        while "." in name:
            name = name.rsplit(".", 1)[0]
            fresh.add(name)
    for name, mod in modules:
        d = _MODULE_DICT(mod) if issubclass(type(mod), types.ModuleType) else None
        if name not in fresh and reuse[name][0] is mod and reuse[name][1] is d:
            fp[name] = reuse[name]
            continue
        items = tuple(d.items()) if isinstance(d, dict) else ()
        keys = tuple(k for k, _ in items)
        if name.startswith(DEEP):
            cached = CACHES.get(name, ())
            shapes = tuple((v,) if type(k) is str and k in cached else _shape(v)
                           for k, v in items)
            flat = tuple(itertools.chain.from_iterable(shapes))
        else:
            shapes = flat = tuple(v for _, v in items)
        fp[name] = (mod, d, keys, shapes, flat)
    return fp


def changed(before: dict, after: dict) -> list[str]:
    """What changed or vanished: ``sys.modules['name']`` (the module or its dict replaced,
    or gone) or ``name.attribute``; new attributes and modules (lazy imports) are fine."""
    out = []
    for name, was in before.items():
        now = after.get(name)
        if now is None or now[0] is not was[0] or now[1] is not was[1]:
            out.append(f"sys.modules[{name!r}]")
            continue
        if _same(was[2], now[2]) and _same(was[4], now[4]):
            continue
        if any(type(k) is not str for k in now[2]):  # its hash or == would run its code
            out.append(f"{name}: an attribute named by an object that is not a plain str")
        deep = name.startswith(DEEP)
        current = {k: v for k, v in zip(now[2], now[3]) if type(k) is str}
        out += [f"{name}.{k}" for k, v in zip(was[2], was[3])
                if k not in current or not (_same(v, current[k]) if deep else v is current[k])]
    return sorted(out)
