"""What may not change while a student's code runs in the trusted pass's student process:
the ids of the grading machinery (``fingerprint``: every protected module), taken before the
answer cell runs and compared (``changed``) after it and after the judge's last call. The
verdict never depends on it (the check runs in the judge): a change only marks the item as
tampering, which a trainer reviews."""
from __future__ import annotations

import inspect
import sys

from labsupport.exercises.guard import GradingContext

PROTECTED = ("labsupport", "labgrader", "builtins", "numpy", "math", "statistics")  # asyncio changes itself
DEEP = ("labsupport", "labgrader", "builtins")  # their attributes' insides too (``_shape``)
CACHES = {"labgrader.wire": frozenset({"_STAND_INS", "_OPAQUE"})}  # grow as records are
#                                 decoded: only the dict itself may not change


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


def fingerprint(reuse: dict | None = None, again: tuple[str, ...] = ()) -> dict[str, tuple]:
    """Module name -> (its id, its dict's id, its attribute names, each attribute's shape:
    ``_shape`` in ``DEEP`` modules, its id elsewhere), for every protected module. One tuple
    per module, built at C speed where it can be: this runs around every item's answer
    cell, in a fork whose every touched page is a copy. ``reuse``: a fingerprint taken
    earlier in this process's memory (the template's, before the fork), whose entries stand
    for every module but those named in ``again`` (changed since, by the grader itself)."""
    fp: dict[str, tuple] = {}
    modules = [(n, m) for n, m in list(sys.modules.items())
               if m is not None and n.split(".")[0] in PROTECTED]
    fresh = set(again) | {n for n, _ in modules if reuse is None or n not in reuse}
    for name in list(fresh):  # an import since sets an attribute of each package above it
        while "." in name:
            name = name.rsplit(".", 1)[0]
            fresh.add(name)
    for name, mod in modules:
        d = getattr(mod, "__dict__", None)
        if name not in fresh and reuse[name][:2] == (id(mod), id(d)):
            fp[name] = reuse[name]
            continue
        items = tuple(d.items()) if isinstance(d, dict) else ()
        keys = tuple(k for k, _ in items)
        if name.startswith(DEEP):
            cached = CACHES.get(name, ())
            shapes = tuple((id(v),) if k in cached else _shape(v) for k, v in items)
        else:
            shapes = tuple(id(v) for _, v in items)
        fp[name] = (id(mod), id(d), keys, shapes)
    return fp


def changed(before: dict, after: dict) -> list[str]:
    """What changed or vanished: ``sys.modules['name']`` (the module or its dict replaced,
    or gone) or ``name.attribute``; new attributes and modules (lazy imports) are fine."""
    out = []
    for name, was in before.items():
        now = after.get(name)
        if now == was:
            continue
        if now is None or now[:2] != was[:2]:
            out.append(f"sys.modules[{name!r}]")
            continue
        current = dict(zip(now[2], now[3]))
        out += [f"{name}.{k}" for k, v in zip(was[2], was[3]) if current.get(k, current) != v]
    return sorted(out)
