"""The student process's view of the lab package (issue 30): a copy of ``labsupport`` in
which the lab's own implementations of the exercise being graded (``references``) are
stubs, built from the package's files before any student code of the item runs. Grading
kernels get one too (``for_kernel``): every exercise's references stubbed, built once per
grading run, bound read-only at the genuine package folder in each kernel's box (a test
cell there fails at the first reference its check calls: the judge's verdict replaces it).

``build(ex, root)`` writes the copy under ``root`` (a fresh folder): every module file as
it is (with its compiled ``__pycache__``, so importing it costs no compiling), except the
modules holding a reference, rewritten with
``ast``: each function of a reference (a function, every method of a class, every function
and method of a whole module) keeps its name, signature and decorators, and its body only
raises ``guard.unavailable(<reference>)`` ("not available while this exercise is graded"),
which tells the judge at once that the student's code reached for it. Nothing else of those
modules changes (classes keep their fields and bases, constants their values), and the
genuine compiled code of a rewritten module is left out. The student process imports the
package from here (``labgrader.student``): the lab's implementation is not in its memory,
and in the box the genuine package folder shows this copy too. The judge names a view again
for a later item with the same stubs (``key``) only while ``unchanged``: a child can write
wherever its uid can, and every write, rename, link or new file changes a file's or a
folder's change time, which no process of the student's can set back. An unchanged view
becomes the next item's with other stubs in place (``rebuild``: the modules that differ
rewritten, a fresh folder name).
"""
from __future__ import annotations

import ast
import atexit
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import labsupport
from labsupport.exercises.registry import EXERCISES

from .references import references

ROOT = Path(labsupport.__file__).resolve().parent  # the genuine package folder
PACKAGE = ROOT.name
UNAVAILABLE = "labsupport.exercises.guard"  # the stubs' one import, at call time


def _target(ref: str) -> tuple[Path, tuple[str, ...]] | None:
    """Where ``ref`` is defined: (module file or package folder, the names inside it)."""
    parts = ref.split(".")
    if parts[0] != PACKAGE:
        return None
    for k in range(len(parts), 0, -1):
        base = ROOT.parent.joinpath(*parts[:k])
        if base.is_dir() and (base / "__init__.py").exists():
            return base, tuple(parts[k:])
        if base.with_suffix(".py").is_file():
            return base.with_suffix(".py"), tuple(parts[k:])
    return None


LIVE = {"ex06_10": ("labsupport.decoder.kvcache.block_names",)}
# references the check's own driver needs beside the student's code (ex06_10's driver runs
# the lab's engine, whose cache names its blocks with block_names): kept genuine there, and
# watched by the tripwire alone (a call of it from the student's code is a hit)


TABLE = "labsupport.exercises.registry"
# a reference for the audit (an answer cell asking it for the lab's answer is flagged), but
# kept genuine here: the table builds its entries at import, and every lab answer it names
# is a reference of its exercise, stubbed in that exercise's view anyway


def _exercises(ex: str | tuple[str, ...]) -> tuple[str, ...]:
    return (ex,) if isinstance(ex, str) else tuple(sorted(set(ex)))


def stubs(ex: str | tuple[str, ...]) -> dict[Path, dict[tuple[str, ...], str]]:
    """Module file -> {path inside it (``()``: the whole module) -> reference name}, for
    every reference of ``ex`` (one exercise, or several: the grading kernels' ``KERNEL``) but
    their ``LIVE`` ones and the exercise ``TABLE``."""
    exs = _exercises(ex)
    live = {r for e in exs for r in LIVE.get(e, ())}
    refs = dict.fromkeys(r for e in exs for r in references(e))
    out: dict[Path, dict[tuple[str, ...], str]] = {}
    for ref in (r for r in refs if r not in live and r != TABLE):
        found = _target(ref)
        if found is None:
            continue
        base, inside = found
        files = sorted(base.rglob("*.py")) if base.is_dir() and not inside else [base]
        if base.is_dir():
            files = files if not inside else [base / "__init__.py"]
        for f in files:
            out.setdefault(f, {})[inside] = ref
    return out


def _raise(ref: str) -> ast.stmt:
    return ast.parse(f"raise __import__({UNAVAILABLE!r}, fromlist=['unavailable'])"
                     f".unavailable({ref!r})").body[0]


KEPT = frozenset({"__init__", "__post_init__", "__new__", "__init_subclass__", "__set_name__",
                  "__repr__", "__str__", "__eq__", "__hash__", "__class_getitem__"})
# a reference class's construction and identity stay: the lab's own modules make instances
# at import (a driver's cost model, a check's fixed config) and a student's answer may hold
# them; what computes stays a stub. Named alone (``Class.method``), a method is a stub anyway.


def _owner(path: tuple[str, ...], wanted: dict[tuple[str, ...], str]) -> str | None:
    if path in wanted:
        return wanted[path]
    if len(path) > 1 and path[-1] in KEPT:
        return None
    for k in range(len(path) - 1, -1, -1):
        if path[:k] in wanted:
            return wanted[path[:k]]
    return None


def _stub_body(body: list, prefix: tuple[str, ...], wanted: dict) -> None:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            ref = _owner(prefix + (node.name,), wanted)
            if ref is not None:
                node.body = [_raise(ref)]
        elif isinstance(node, ast.ClassDef):
            _stub_body(node.body, prefix + (node.name,), wanted)
        elif isinstance(node, (ast.If, ast.Try)) and not prefix:
            for part in (node.body, node.orelse, getattr(node, "finalbody", []),
                         *[h.body for h in getattr(node, "handlers", [])]):
                _stub_body(part, prefix, wanted)


def stubbed_source(source: str, wanted: dict[tuple[str, ...], str]) -> str:
    """``source`` (a module of the package) with the functions ``wanted`` names stubbed."""
    tree = ast.parse(source)
    _stub_body(tree.body, (), wanted)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def key(ex: str | tuple[str, ...]) -> str:
    """One name per set of stubs (the start of an item's view folder name)."""
    spec = sorted((str(f), sorted(map(list, w))) for f, w in stubs(ex).items())
    return hashlib.sha256(repr(spec).encode()).hexdigest()[:16]


def build(ex: str | tuple[str, ...], root: Path) -> Path:
    """A fresh folder under ``root`` (its name starts with ``key(ex)``, the rest is random) to
    put first on the student process's ``sys.path`` for the items of ``ex``: it holds
    ``labsupport``, ``ex``'s references stubbed."""
    todo = stubs(ex)
    dest = Path(tempfile.mkdtemp(prefix=f"{key(ex)}-", dir=root))
    rewritten = {f.relative_to(ROOT) for f in todo}

    def skip(folder: str, names: list[str]) -> list[str]:
        here = Path(folder).resolve()
        if here.name == "__pycache__":  # the genuine compiled code of a stubbed module stays out
            stems = {r.stem for r in rewritten if (ROOT / r).parent == here.parent}
            return [n for n in names if n.split(".")[0] in stems]
        return []
    shutil.copytree(ROOT, dest / PACKAGE, ignore=skip)
    for f, wanted in todo.items():
        (dest / PACKAGE / f.relative_to(ROOT)).write_text(stubbed_source(f.read_text(), wanted))
    return dest


KERNEL = tuple(EXERCISES)  # a grading kernel's view stubs every exercise's references: a
#   kernel grading one notebook could otherwise answer for another's judge (redteam11)
_KERNEL: list[Path] = []  # this process's kernel view, once built (``for_kernel``)


def for_kernel() -> Path:
    """The grading kernels' package folder (``build(KERNEL, …)/labsupport``), built once in
    this process under a folder of its own, removed when the process exits; a grading run
    with jobs builds its own instead, in its private folder, before the jobs start
    (``AutogradeExecute.kernel_view``). Kernels see it read-only at the genuine package folder
    (``box.Box``'s ``views``)."""
    if not _KERNEL:
        folder = Path(tempfile.mkdtemp(prefix="labgrader-kernel-view-"))
        atexit.register(shutil.rmtree, folder, True)
        _KERNEL.append(build(KERNEL, folder) / PACKAGE)
    return _KERNEL[0]


def _pycache(module: Path, folder: Path) -> list[Path]:
    """The compiled files of ``module`` (a ``.py`` file) in ``folder``'s ``__pycache__``."""
    cache = folder / "__pycache__"
    return sorted(cache.glob(f"{module.stem}.*.pyc")) if cache.is_dir() else []


def rebuild(folder: Path, was: str, ex: str, root: Path) -> Path:
    """``build(ex, root)``, made from ``folder`` (``was``'s view, ``unchanged`` since it was
    built: the caller checks) by rewriting only the modules whose stubs differ — the
    genuine file and its compiled code back where ``was`` had a stub, ``ex``'s stub where it
    has one — and moving it to a fresh folder name. A copy of the whole package costs
    100–300 ms an item; this a few."""
    before, after = stubs(was), stubs(ex)
    pkg = folder / PACKAGE
    for f in sorted(set(before) | set(after)):
        if before.get(f) == after.get(f):
            continue
        dest = pkg / f.relative_to(ROOT)
        for pyc in _pycache(dest, dest.parent):
            pyc.unlink()
        if f in after:
            dest.write_text(stubbed_source(f.read_text(), after[f]))
        else:
            shutil.copyfile(f, dest)
            for pyc in _pycache(f, f.parent):
                shutil.copyfile(pyc, dest.parent / "__pycache__" / pyc.name)
    fresh = Path(tempfile.mkdtemp(prefix=f"{key(ex)}-", dir=root))
    os.rename(folder, fresh)  # over the empty folder just made: a name no child could know
    return fresh


def snapshot(folder: Path) -> dict[str, tuple]:
    """Every file and folder under ``folder`` (itself included): inode, change time (ns),
    size and mode, without following links."""
    st = os.lstat(folder)
    out = {".": (st.st_ino, st.st_ctime_ns, st.st_size, st.st_mode)}
    todo = [(os.fspath(folder), "")]
    while todo:  # os.scandir: one directory read, one lstat per entry (os.walk: two)
        path, rel = todo.pop()
        with os.scandir(path) as entries:
            for e in entries:
                st = e.stat(follow_symlinks=False)
                name = rel + e.name
                out[name] = (st.st_ino, st.st_ctime_ns, st.st_size, st.st_mode)
                if e.is_dir(follow_symlinks=False):
                    todo.append((e.path, name + "/"))
    return out


def unchanged(folder: Path, taken: dict[str, tuple]) -> bool:
    """Whether ``folder`` is as ``snapshot`` found it (``taken``)."""
    try:
        return snapshot(folder) == taken
    except OSError:
        return False
