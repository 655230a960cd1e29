"""What a check's call of the student's code gave back, as JSON: the only thing that leaves
the process where a student's code ran for the judge (``tape.Tape``, ``trusted``).

``encode`` runs beside the student's code, while the tripwire still watches the call, and
looks only at ``type(v)`` by identity (exact builtin and numpy types, unbound methods), so
none of the student's code runs while it writes. A call's record (``strict``) holds nothing
else: a value of any other type (a subclass of a builtin or numpy type, an object of the
student's) is ``NotPlain`` and the call counts as failed. ``decode``
runs in the judge and builds nothing but builtins, numpy values, exceptions of known
types and the lab's own dataclasses — never an object of the student's, never an import,
never ``pickle``. A value that is none of these comes back as a stand-in that carries only
its type's name (``Opaque``): a check that compares it fails, as it would on the original.
The same round trip is applied on the student's side too, so both processes see the same
values and the check takes the same path in each.
"""
from __future__ import annotations

import base64
import builtins
import dataclasses
import sys
import types
from typing import Any

import numpy as np

from labsupport.exercises.partial import PartialScore
from labsupport.exercises.plain import class_name

MAX_VALUES = 2_000_000  # a result bigger than this is not an answer to any check here
MAX_DEPTH = 64
EXCEPTION_HOMES = ("builtins", "asyncio", "concurrent.futures", "labsupport")  # types rebuilt
NUMPY_KINDS = "biufc"  # array dtypes sent as raw bytes


class Opaque:
    """A value of the student's own type, seen from the judge: only its type's name."""
    __slots__ = ()

    def __repr__(self) -> str:
        return f"<a {class_name(type(self))} object>"


class WireError(ValueError):
    """A message that is not what ``encode`` writes (a forged or damaged record)."""


class NotPlain(TypeError):
    """A call of the student's code gave back a value the record does not hold (its type is
    not exactly a builtin, numpy or lab type): the call fails with this."""


# exact numpy scalar types (by identity: a subclass, or a class that only names itself
# ``numpy.float64``, is none of these), each decoded with the unbound ``np.generic.item``
NUMPY_SCALARS = {id(t): t for t in (np.bool_, np.float16, np.float32, np.float64,
                                    np.complex64, np.complex128, np.int8, np.int16, np.int32,
                                    np.int64, np.uint8, np.uint16, np.uint32, np.uint64)}
_generic_item = np.generic.item


def _home(t: type) -> str:
    return type.__dict__["__module__"].__get__(t) or ""


def _qualname(t: type) -> str:
    return type.__dict__["__qualname__"].__get__(t)


def genuine_class(module: str, qualname: str):
    """The class ``module.qualname`` if that module is already loaded (no import)."""
    obj = sys.modules.get(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None) if obj is not None else None
    return obj if isinstance(obj, type) else None


def _lab_dataclass(t: type) -> bool:
    home = _home(t)
    return (home.startswith("labsupport.") and "__dataclass_fields__" in type.__dict__["__dict__"].__get__(t)
            and genuine_class(home, _qualname(t)) is t)


def encode(value: Any, strict: bool = False) -> Any:
    """``value`` as JSON-able data (see the module's docstring). ``strict`` (a call's
    record): ``NotPlain`` on a value of any type but the exact ones written here; else such
    a value is written as its type's name only (``Opaque``). An exception's arguments are
    never strict (the call failed already)."""
    count = [0]

    def walk(v: Any, depth: int, strict: bool = strict) -> Any:
        count[0] += 1
        if count[0] > MAX_VALUES or depth > MAX_DEPTH:
            if strict:
                raise NotPlain(f"the value holds more than {MAX_VALUES:,} parts, or is nested "
                               f"more than {MAX_DEPTH} deep")
            return {"o": "value too big or too deep"}
        t = type(v)
        if v is None or t is bool or t is str:
            return v
        if t is int:
            return v if abs(v) < 2**53 else {"i": str(v)}
        if t is float:
            return v if v == v and v not in (float("inf"), float("-inf")) else {"x": repr(v)}
        if t is list or t is tuple or t is set or t is frozenset:
            tag = {list: "l", tuple: "t", set: "s", frozenset: "fs"}[t]
            it = {list: list.__iter__, tuple: tuple.__iter__, set: set.__iter__,
                  frozenset: frozenset.__iter__}[t](v)
            return {tag: [walk(x, depth + 1, strict) for x in it]}
        if t is dict:
            return {"d": [[walk(k, depth + 1, strict), walk(x, depth + 1, strict)]
                          for k, x in dict.items(v)]}
        if t is bytes:
            return {"b": base64.b64encode(v).decode()}
        if t is complex:
            return {"c": [v.real, v.imag]}
        if t is np.ndarray:
            if v.dtype.kind in NUMPY_KINDS:
                return {"nd": v.dtype.str, "shape": list(v.shape),
                        "data": base64.b64encode(np.ascontiguousarray(v).tobytes()).decode()}
            return {"ndo": list(v.shape), "v": [walk(x, depth + 1, strict) for x in v.ravel().tolist()]}
        if NUMPY_SCALARS.get(id(t)) is t:
            return {"np": np.dtype(t).str, "v": walk(_generic_item(v), depth + 1, strict)}
        if issubclass(t, BaseException):
            args = BaseException.__dict__["args"].__get__(v)
            return {"e": [_home(t), _qualname(t)], "base": _builtin_base(t),
                    "args": [walk(a, depth + 1, False) for a in tuple.__iter__(args)]}
        if _lab_dataclass(t):
            return {"dc": [_home(t), _qualname(t)],
                    "f": {f.name: walk(object.__getattribute__(v, f.name), depth + 1, strict)
                          for f in dataclasses.fields(t)}}
        if issubclass(t, type):  # a class (its metaclass's MRO; no attribute of the value read)
            return {"cls": class_name(v)}
        if t is types.FunctionType or t is types.BuiltinFunctionType or t is types.MethodType:
            return {"fn": class_name(t)}
        if strict:
            raise NotPlain(f"a {class_name(t)} object, not a plain value (int, float, str, bool, "
                           "None, list, tuple, dict, numpy array or scalar)")
        return {"o": class_name(t)}

    return walk(value, 0)


def _builtin_base(t: type) -> str:
    """The nearest builtin exception class in ``t``'s MRO (no student code: ``type.__mro__``)."""
    for b in type.__dict__["__mro__"].__get__(t):
        if _home(b) == "builtins":
            return class_name(b)
    return "BaseException"


_OPAQUE: dict[str, type] = {}
_STAND_INS: dict[str, type] = {}


def _opaque(name: str) -> Opaque:
    cls = _OPAQUE.get(name)
    if cls is None:
        cls = _OPAQUE[name] = type(str(name)[:80] or "object", (Opaque,), {"__slots__": ()})
    return cls()


def _exception(home: str, qualname: str, base: str, args: tuple) -> BaseException:
    cls = genuine_class(home, qualname) if home.startswith(EXCEPTION_HOMES) else None
    if cls is not None and issubclass(cls, PartialScore):
        cls = None  # a share of the points comes from the judge's check, never from a record
    if cls is None or not issubclass(cls, BaseException):
        root = getattr(builtins, base, None)
        if not (isinstance(root, type) and issubclass(root, BaseException)):
            root = Exception
        key = f"{qualname}({root.__name__})"
        cls = _STAND_INS.get(key)
        if cls is None:  # the student's own exception class: its name over the builtin base
            cls = _STAND_INS[key] = type(str(qualname).rpartition(".")[2][:80] or "Error",
                                         (root,), {})
    err = cls.__new__(cls)
    BaseException.__dict__["args"].__set__(err, args)
    return err


def decode(data: Any) -> Any:
    """The value ``encode`` wrote (``WireError`` on anything else)."""
    try:
        return _decode(data, 0)
    except WireError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError) as err:
        raise WireError(f"not a recorded value ({type(err).__name__})") from None


def _decode(w: Any, depth: int) -> Any:
    if depth > MAX_DEPTH + 2:
        raise WireError("too deep")
    t = type(w)
    if w is None or t in (bool, int, float, str):
        return w
    if t is not dict or len(w) == 0:
        raise WireError(f"unexpected {t.__name__}")
    d = depth + 1
    if "l" in w:
        return [_decode(x, d) for x in w["l"]]
    if "t" in w:
        return tuple(_decode(x, d) for x in w["t"])
    if "s" in w:
        return {_decode(x, d) for x in w["s"]}
    if "fs" in w:
        return frozenset(_decode(x, d) for x in w["fs"])
    if "d" in w:
        return {_decode(k, d): _decode(x, d) for k, x in w["d"]}
    if "i" in w:
        return int(str(w["i"]))
    if "x" in w:
        return float(str(w["x"]))
    if "b" in w:
        return base64.b64decode(str(w["b"]))
    if "c" in w:
        return complex(float(w["c"][0]), float(w["c"][1]))
    if "nd" in w:
        dtype = np.dtype(str(w["nd"]))
        if dtype.kind not in NUMPY_KINDS:
            raise WireError("array dtype")
        shape = tuple(int(n) for n in w["shape"])
        return np.frombuffer(base64.b64decode(str(w["data"])), dtype=dtype).reshape(shape).copy()
    if "ndo" in w:
        shape = tuple(int(n) for n in w["ndo"])
        out = np.empty(len(w["v"]), dtype=object)
        for i, x in enumerate(w["v"]):
            out[i] = _decode(x, d)
        return out.reshape(shape)
    if "np" in w:
        dtype = np.dtype(str(w["np"]))
        if dtype.kind not in NUMPY_KINDS + "USM":
            raise WireError("scalar dtype")
        return dtype.type(_decode(w["v"], d))
    if "e" in w:
        home, qualname = (str(x) for x in w["e"])
        return _exception(home, qualname, str(w["base"]), tuple(_decode(a, d) for a in w["args"]))
    if "dc" in w:
        cls = genuine_class(*(str(x) for x in w["dc"]))
        if cls is None or not _lab_dataclass(cls):
            raise WireError("not a lab dataclass")
        names = {f.name for f in dataclasses.fields(cls)}
        if set(w["f"]) != names:
            raise WireError("dataclass fields")
        obj = cls.__new__(cls)
        for name, x in w["f"].items():
            object.__setattr__(obj, name, _decode(x, d))
        return obj
    if "cls" in w:
        return stand_in_class(str(w["cls"]))
    if "fn" in w:
        return _stand_in_function
    if "o" in w:
        return _opaque(str(w["o"]))
    raise WireError("unknown tag")


def stand_in_class(name: str) -> type:
    """In the judge: a class with the student's class's name (a check may look at that)."""
    cls = _STAND_INS.get("class " + name)
    if cls is None:
        cls = _STAND_INS["class " + name] = type(name[:80] or "Class", (), {})
    return cls


def _stand_in_function(*args, **kw):
    """In the judge: the student's function, which never runs there."""
    raise RuntimeError("the student's code does not run in the judge")
