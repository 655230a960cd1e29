"""The runtime half of reference detection: in the trusted pass, the lab's own
implementations of the exercise under check (``references.references``) must not run while
the student's code runs. The student process's view holds them as stubs that report when
called, and code compiled at run time goes to the judge (``codewatch``), so its child arms
the tripwire only for the references its view keeps genuine (``view.LIVE``). ``Tripwire``
watches there (through the checks' context's ``watch``): around each call of the student's
code (``guard.student``) it looks up every Python call among the reference code objects, so a reference reached by a path no static audit sees (a lab function that calls
it, a computed import, a thread the call starts) still marks the item. The trusted pass
also arms it while the answer cell runs, so threads the cell starts are traced as well.
"""
from __future__ import annotations

import contextlib
import importlib
import inspect
import sys
import threading
import types
from typing import Callable

from .references import is_under, references


def _loaded(dotted: str):
    """The object at ``dotted`` if its module is already imported, else None."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        mod = sys.modules.get(".".join(parts[:k]))
        if mod is None:
            continue
        obj = mod
        for attr in parts[k:]:
            obj = inspect.getattr_static(obj, attr, None)
            if obj is None:
                return None
        return obj
    return None


def _codes(obj, name: str, out: dict) -> None:
    """Code objects run by ``obj`` (a function, class, method or module) -> ``name``."""
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        for f in (obj.fget, obj.fset, obj.fdel):
            if f is not None:
                _codes(f, name, out)
        return
    if isinstance(obj, types.FunctionType):
        todo = [obj.__code__]
        while todo:
            code = todo.pop()
            if code not in out:
                out[code] = name
                todo += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    elif isinstance(obj, type):
        for k, v in list(vars(obj).items()):
            _codes(v, f"{name}.{k}" if not isinstance(v, type) else name, out)
    elif isinstance(obj, types.ModuleType):
        for k, v in list(vars(obj).items()):
            if getattr(v, "__module__", None) == obj.__name__:
                _codes(v, f"{obj.__name__}.{k}", out)


def reference_codes(ex: str) -> dict:
    """Code object and ``code_shape`` of a function -> reference name, for ``ex``'s
    references whose modules are loaded (a module that is not imported cannot run)."""
    out: dict = {}
    for ref in references(ex):
        for name in [m for m in list(sys.modules) if is_under(m, ref)] or [ref]:
            obj = _loaded(name)
            if obj is not None:
                _codes(obj, ref, out)
    shaped = {code_digest(code): ref for code, ref in out.items() if not _nested(code)}
    return {**out, **shaped}


def reference_digests(ex: str) -> dict[str, str]:
    """``code_digest`` of each function of ``ex``'s loaded references -> reference name: what
    the student process's tripwire looks for (a copy of a reference's code, by its shape),
    with no reference in its memory."""
    return {k: v for k, v in reference_codes(ex).items() if type(k) is str}


def _nested(code: types.CodeType) -> bool:
    """A comprehension, lambda or inner function: alone it is too small to tell a copy from
    an honest answer (``sum(len(s.output) for s in …)`` is common), so only its exact code
    object counts; a reference's own function counts by its shape (which holds its nested
    code too)."""
    return "<locals>" in code.co_qualname or code.co_name.startswith("<")


_UNSEEN = object()


def code_shape(code: types.CodeType) -> tuple:
    """What a function's code *does*, without where it was written: its name, arguments,
    flags, bytecode, constants (nested code by its shape), names and local names — not its
    file or line numbers. A copy of a reference's source, in any file and at any line, has
    the reference's shape."""
    consts = tuple(code_shape(c) if isinstance(c, types.CodeType) else (type(c).__name__, repr(c))
                   for c in code.co_consts)
    return (code.co_name, code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
            code.co_flags, code.co_code, consts, code.co_names, code.co_varnames)


def code_digest(code: types.CodeType) -> str:
    """``code_shape`` as a short hex string (it travels to the student process)."""
    import hashlib
    return hashlib.sha256(repr(code_shape(code)).encode()).hexdigest()[:32]


class Tripwire:
    """The trusted pass's watch (inside the checks' context's ``watch``): while the
    student's code runs for ``ex``, every Python call is looked up among ``ex``'s reference code objects; a hit is kept
    in ``hits`` as ``(ex, reference)`` and handed to ``on_hit(ex, reference)`` at once,
    before the student's code goes on (the trusted pass writes it to the judge then)."""

    def __init__(self, on_hit: Callable[[str, str], None] | None = None,
                 codes: Callable[[str], dict] | None = None):
        self.hits: list[tuple[str, str]] = []
        self.on_hit = on_hit
        self.codes = codes or reference_codes  # ex -> {code object or code_digest: reference}
        self._codes: dict[tuple[str, int], dict] = {}  # (ex, modules loaded) -> its codes
        self._memo: dict[tuple[str, int], dict] = {}  # the same key -> the codes looked at
        self.thread_tracer = None  # while armed: the tracer a new thread starts with

    def cover_raw_threads(self) -> None:
        """Every thread started while the tripwire is armed starts traced, also one started
        below ``threading`` (``_thread.start_new_thread``, which ``threading.settrace`` does
        not reach). The trusted pass calls this before the student's code runs."""
        import _thread
        original = _thread.start_new_thread

        def start(function, args, kwargs=None):
            tracer = self.thread_tracer
            if tracer is None:
                return original(function, args, kwargs or {})
            return original(_run_traced, (tracer, function, args, kwargs or {}))
        _thread.start_new_thread = _thread.start_new = threading._start_new_thread = start

    @contextlib.contextmanager
    def __call__(self, ex: str):
        key = (ex, len(sys.modules))  # computed again only when a module was imported
        if key not in self._codes:
            self._codes[key] = self.codes(ex)
        codes = self._codes[key]
        if not codes:
            yield
            return
        hits, old = self.hits, sys.gettrace()
        memo = self._memo.setdefault(key, {})  # id(code) -> (code, reference name or None)

        def seen(frame, event, arg):  # every Python call: keep it cheap
            code = frame.f_code
            got = memo.get(id(code))  # by id (a code object's hash reads all of it); the
            if got is None or got[0] is not code:  # memo keeps it alive, so its id is its own
                got = memo[id(code)] = (code, codes.get(code) or (
                    None if _nested(code) else codes.get(code_digest(code))))
            if got[1] is not None and (ex, got[1]) not in hits:
                hits.append((ex, got[1]))
                if self.on_hit is not None:
                    self.on_hit(ex, got[1])

        def trace(frame, event, arg):
            seen(frame, event, arg)
            return old(frame, event, arg)

        old_threads, old_tracer = threading.gettrace(), self.thread_tracer
        sys.settrace(seen if old is None else trace)
        threading.settrace(seen)  # a thread the call starts runs the reference in plain sight too
        self.thread_tracer = seen
        try:
            yield
        finally:
            sys.settrace(old)
            threading.settrace(old_threads)
            self.thread_tracer = old_tracer


def _run_traced(tracer, function, args: tuple, kwargs: dict):
    """A new thread's first frame under ``cover_raw_threads``: the tracer, then its work."""
    sys.settrace(tracer)
    return function(*args, **kwargs)


def load_reference_modules(ex: str) -> None:
    """Import the (light) modules of ``ex``'s references, so the tripwire knows their
    code before the student's does anything; heavy ones (torch) stay out."""
    for ref in references(ex):
        parts = ref.split(".")
        for k in range(len(parts), 1, -1):
            name = ".".join(parts[:k])
            if name.startswith("labsupport.encoder"):
                break
            try:
                importlib.import_module(name)
                break
            except ImportError:
                continue
