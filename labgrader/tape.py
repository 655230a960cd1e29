"""The trusted pass's record of what each call of the student's code gave back: written
beside the student's code (``Tape``, in ``labgrader.student``), asked for call by call by
the judge (``Remote``, in ``labgrader.trusted``), and how a forged record shows there
(``TapeMismatch``)."""
from __future__ import annotations

from labsupport.exercises.guard import Tampered, watched as run_watched

from . import wire


class RequestError(RuntimeError):
    """In the judge: a check's call holds something the student process cannot rebuild (a
    function whose code is not the lab's): a fault of the lab's check, not of the answer."""


def code_address(code) -> tuple[str, str, int]:
    """Where a code object of the lab is: (module, name, first line). The judge sends a
    check's lambda or local function with its code by this address, never as bytecode."""
    from pathlib import Path

    from .references import ROOT
    try:
        rel = Path(code.co_filename).resolve().relative_to(ROOT.parent)
    except ValueError:
        raise LookupError(f"code of {code.co_name} is not the lab's ({code.co_filename})") from None
    return ".".join(rel.with_suffix("").parts).removesuffix(".__init__"), code.co_name, code.co_firstlineno


def lab_code(module: str, name: str, line: int):
    """In the student process: the lab's own code object at ``code_address`` (found among
    the module's functions, methods and their nested code): no code object is built."""
    import importlib
    import sys
    import types
    mod = sys.modules.get(module) or importlib.import_module(module)
    todo, seen = list(vars(mod).values()), set()
    while todo:
        v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, (staticmethod, classmethod)):
            v = v.__func__
        if isinstance(v, property):
            todo += [f for f in (v.fget, v.fset, v.fdel) if f is not None]
        elif isinstance(v, types.FunctionType):  # a decorated check: what it wraps too
            todo += [v.__code__, *([v.__wrapped__] if hasattr(v, "__wrapped__") else [])]
            for cell in v.__closure__ or ():
                try:
                    todo.append(cell.cell_contents)
                except ValueError:  # an empty cell
                    pass
        elif isinstance(v, type) and v.__module__ == module:
            todo += list(vars(v).values())
        elif type(v) is types.CodeType:
            if v.co_name == name and v.co_firstlineno == line:
                return v
            todo += [c for c in v.co_consts if type(c) is types.CodeType]
    raise LookupError(f"no code {name} at line {line} in {module}")


class TapeMismatch(AssertionError):
    """In the judge: the check asked for a call the record does not hold."""


class Tape:
    """The record of what each call of the student's code gave back, in the student
    process (``labgrader.student``).

    A call runs, and its outcome — a value or an exception — is written with
    ``wire.encode`` while the watch is still on; the call goes on with the decoded copy. A
    value of any other type than the record holds (``wire.NotPlain``) makes the call fail.
    The judge reads the records one by one (``Remote``, ``outcome``) and decides there. A
    call inside a recorded call (a lab driver calling the student's function) runs as part
    of the outer one. ``armed``: recording starts once the answer cell has run."""

    remote = False  # the call runs here (``Remote``: in the student process)

    def __init__(self):
        self.records: list = []
        self.armed = False
        self._depth = 0

    def call(self, ex: str, fn, args: tuple, kw: dict, watched: bool = True, bounded: bool = False):
        if self._depth:
            return run_watched(ex, fn, args, kw)

        def recorded(*a, **k):  # encoded before the watch ends: nothing of the student's runs after it
            return wire.encode(fn(*a, **k), strict=True)
        self._depth += 1
        try:
            data, kind = (run_watched(ex, recorded, args, kw) if watched else recorded(*args, **kw)), "return"
        except Tampered:
            raise
        except BaseException as exc:  # noqa: BLE001 - the student's outcome, recorded
            if type(exc) is wire.NotPlain:
                exc = AssertionError(f"{ex}: your code gave back {exc.args[0]}")
            data, kind = wire.encode(exc), "raise"
        finally:
            self._depth -= 1
        self.records.append([ex, kind, data])
        out = wire.decode(data)
        if kind == "raise":
            raise out
        return out


def outcome(ex: str, rec, n: int):
    """A recorded call (``[ex, "return" | "raise", wire data]``, the ``n``-th) as the check
    gets it: the value returned, or the exception raised; ``TapeMismatch`` on anything else."""
    if type(rec) is not list or len(rec) != 3 or rec[0] != ex or rec[1] not in ("return", "raise"):
        raise TapeMismatch(f"{ex}: call {n} of the record does not fit the check")
    value = wire.decode(rec[2])
    if rec[1] == "raise":
        if not isinstance(value, BaseException):
            raise TapeMismatch(f"{ex}: call {n} raised a non-exception")
        raise value
    return value


class Remote:
    """In the judge (``tape.remote``; ``guard.bounded`` sends its calls here too): each call the check makes of the student's code (``guard.student``,
    ``bounded``, ``driver``) is sent to the student process and its recorded outcome read
    back (``ask``: request -> record, or ``Stop``). The request names the student's
    objects by name (``names``: id of the judge's stand-in -> name), everything else goes as
    it is (``cloudpickle``: the check's own values, the lab's functions by module and name,
    a check's lambda with its code by where it is in the lab, ``lab_code``: the student
    process builds no code object); the answer is only ever a record, decoded with ``wire``
    (``outcome``). On a hidden case (``hidden``) the record is ``scrub``bed first: no text the student's code
    made reaches a verdict."""

    remote = True
    armed = True

    def __init__(self, ask, names: dict, scrub=None):
        self.ask, self.names, self.scrub = ask, names, scrub
        self.hidden = False
        self.calls = 0

    def request(self, ex: str, mode: str, fn, args: tuple, kw: dict) -> bytes:
        import io
        import pickle
        import types

        import cloudpickle
        names = self.names

        class Pickler(cloudpickle.Pickler):
            def persistent_id(self, obj):
                return names.get(id(obj))

            def reducer_override(self, obj):  # a check's lambda: its code by where it is
                if type(obj) is types.CodeType:
                    return lab_code, code_address(obj)
                return super().reducer_override(obj)
        buf = io.BytesIO()
        try:
            Pickler(buf, protocol=5).dump((ex, mode, fn, tuple(args), dict(kw)))
        except (pickle.PicklingError, AttributeError, TypeError, LookupError) as err:
            raise RequestError(f"{ex}: the check's call cannot be sent ({err})") from None
        return buf.getvalue()

    def call(self, ex: str, fn, args: tuple, kw: dict, watched: bool = True, bounded: bool = False):
        mode = "bounded" if bounded else ("student" if watched else "driver")
        rec = self.ask(self.request(ex, mode, fn, args, kw))
        self.calls += 1
        if self.hidden and self.scrub is not None:
            rec = self.scrub(rec)
        return outcome(ex, rec, self.calls)
