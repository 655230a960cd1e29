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
