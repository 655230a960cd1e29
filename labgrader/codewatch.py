"""The code a student's process makes while it is graded goes to the judge (issue 30).

In the trusted pass's student child (``labgrader.student``) the lab's implementations of
the item's exercise are stubs (``view``), so running one means bringing its code: written
in the answer cell (``similarity`` compares the cell's text, review), or made at run time —
a string passed to ``compile``/``exec``/``eval`` (written backwards, read from a file,
pieced together), a module imported from a file the student wrote. ``install`` adds an
audit hook (it cannot be removed) that sends the judge the source of everything compiled
from then on, before it runs, except an import of an unchanged file of the package view or
of the Python install (``roots``) and the answer cell itself; the judge compares each with
the exercise's references (``trusted.judge``: a copy ends the item as "reference"). Code
that comes with no source is refused and marks the item: compiled bytes (``marshal``)
that are not an import of a file under ``roots``, a code object built by hand
(``types.CodeType``, ``code.replace``: the judge's requests hold none), and a syntax tree
compiled directly. The hook keeps what it needs in its defaults (builtins only: a
module attribute the student's code changes does not reach it) and refuses a change to
itself.
"""
from __future__ import annotations

import io
import os
import struct
import sys

CODE = b"C"  # first byte of a code frame (the rest: the source, UTF-8); JSON frames start with "{"
from .similarity import MAX_SOURCE  # bytes of source one compile may send (all the judge's
#                                     copy check reads); more marks the item


def install(fd: int, roots: tuple[str, ...], answer: str, tampered) -> None:
    """The hook: ``fd`` the item's channel; ``roots`` the folders (ending with ``/``) whose
    unchanged files may be imported unseen; ``answer`` the answer cell's source;
    ``tampered`` the exception that ends the item."""
    def hook(event, args, _write=os.write, _pack=struct.pack, _fd=fd, _roots=tuple(roots),
             _answer=answer.encode("utf-8", "surrogatepass"), _code=CODE, _open=io.open, _getframe=sys._getframe,
             _tampered=tampered, _max=MAX_SOURCE, _bytes=bytes, _str=str,
             _type=type, _len=len, _oserror=OSError, _told=[]):
        why = ""
        if event == "compile":
            source, filename = args[0], args[1]
            if _type(source) is _str:
                data = source.encode("utf-8", "surrogatepass")
            elif _type(source) is _bytes:
                data = source
            else:
                data, why = None, "compiled a syntax tree"
            if data is not None and data != _answer:  # the event gives a str as UTF-8 bytes
                skip = False
                if _type(filename) is _str and filename.startswith(_roots) and ".." not in filename:
                    try:
                        with _open(filename, "rb") as f:  # an import of an unchanged file
                            skip = f.read(_len(data) + 1) == data
                    except _oserror:
                        pass
                if skip:
                    return
                if _len(data) > _max:
                    why = f"compiled {_len(data)} bytes of code"
                else:
                    out = _pack("!I", _len(data) + 1) + _code + data
                    while out:
                        out = out[_write(_fd, out):]
                    return
            elif data is not None:
                return
        elif event in ("marshal.loads", "marshal.load"):
            caller = _getframe(1)
            path = caller.f_locals.get("bytecode_path") \
                if caller.f_code.co_name == "_compile_bytecode" else None
            data = args[0] if event == "marshal.loads" else None
            if _type(path) is _str and _type(data) is _bytes and path.startswith(_roots) \
                    and ".." not in path:
                try:
                    with _open(path, "rb") as f:  # an import of a compiled file
                        if f.read()[16:] == data:
                            return
                except _oserror:
                    pass
            why = "loaded compiled code from bytes"
        elif event == "code.__new__":  # the judge's requests hold no code (``tape.Remote``)
            why = "built a code object by hand"
        elif event == "object.__setattr__":
            if args[0] is not hook:
                return
            why = "changed the grader's code watch"
        else:
            return
        if not _told:
            _told.append(why)
            msg = ('{"kind": "tamper", "what": "' + why + ' while graded"}').encode()
            out = _pack("!I", _len(msg)) + msg
            while out:
                out = out[_write(_fd, out):]
        raise _tampered(why + ": not allowed while grading")
    sys.addaudithook(hook)
