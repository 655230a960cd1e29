"""The lab's own implementation of each exercise, as the static audit of answer cells
(``labgrader.audit``) and the runtime tripwire of the trusted pass read it from the one
exercise table, ``labsupport.exercises.registry.EXERCISES``.

``references(ex)`` names, as dotted paths, what solves ``ex`` for the student: a function,
a class, a method, or a whole module (everything in it): the exercise's ``references``, the
lab's own answer its demo cells fall back to (``fallback``), and ``COMMON``, a reference of
every exercise (the notebooks' fallbacks hand out the lab's answers). Using a reference in
an answer cell — imported under any name or path, re-exported elsewhere in the package,
wrapped, subclassed, looked up with a computed name — is flagged with its reason; so is
running one while the student's function runs (``tripwire``). The lab's own demo cells
import them freely: only what the student wrote is audited.

From ``labsupport.exercises`` an answer cell may import only the checks (``check_*``, a
self-test) and ``STUDENT_HELPERS``: every other name there belongs to the grader.
"""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import labsupport
from labsupport.exercises.registry import EXERCISES

PACKAGE = "labsupport"
ROOT = Path(labsupport.__file__).resolve().parent  # labsupport/

COMMON = ("labsupport.exercises.fallback", "labsupport.exercises.registry")
STUDENT_HELPERS = frozenset({  # given to students by a notebook's answer cell
    "labsupport.exercises.ex04.p99_bucketed", "labsupport.exercises.ex04.slo_traffic",
    "labsupport.exercises.ex04.corpus_lengths"})


def references(ex: str) -> tuple[str, ...]:
    """Every reference of ``ex``: its own, its lab answer and ``COMMON``."""
    entry = EXERCISES.get(ex)
    if entry is None:
        return COMMON
    return entry.references + ((entry.fallback,) if entry.fallback else ()) + COMMON


# ---- where a name really lives: re-exports -----------------------------------------------

def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top_level(tree: ast.Module):
    """Statements run at import: the module body and the bodies of top-level if/try."""
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            todo[:0] = node.body + node.orelse + getattr(node, "handlers", []) + getattr(
                node, "finalbody", [])
        elif isinstance(node, ast.ExceptHandler):
            todo[:0] = node.body


@lru_cache(maxsize=1)
def aliases() -> dict[str, str]:
    """``labsupport.x.Name`` -> the dotted path it was imported from, for every top-level
    import of the package (``from ..batching.runtime import MicroBatcher`` in ``ex02``
    makes ``labsupport.exercises.ex02.MicroBatcher`` an alias, ``from .batching.runtime
    import MicroBatcher`` in ``__init__`` makes ``labsupport.MicroBatcher`` one)."""
    out: dict[str, str] = {}
    for path in sorted(ROOT.rglob("*.py")):
        mod = _module_name(path)
        pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
        try:
            tree = ast.parse(path.read_text())
        except (SyntaxError, OSError, UnicodeDecodeError):
            continue
        for node in _top_level(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    head = pkg.split(".")[:len(pkg.split(".")) - node.level + 1]
                    base = ".".join(head + ([node.module] if node.module else []))
                for a in node.names:
                    if a.name != "*":
                        out[f"{mod}.{a.asname or a.name}"] = f"{base}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        out[f"{mod}.{a.asname}"] = a.name
    for k in [k for k, v in out.items() if k == v]:
        del out[k]
    return out


@lru_cache(maxsize=1)
def _modules() -> set[str]:
    """Every module of the package, by dotted name."""
    return {_module_name(path) for path in ROOT.rglob("*.py")}


def canonical(name: str) -> str:
    """Where ``name`` (a dotted path into the package) is defined, following re-exports:
    ``labsupport.MicroBatcher`` -> ``labsupport.batching.runtime.MicroBatcher``."""
    known = aliases()
    for _ in range(32):
        parts = name.split(".")
        for k in range(len(parts), 0, -1):
            head, rest = ".".join(parts[:k]), parts[k:]
            if head in known:
                name = ".".join([known[head], *rest])
                break
        else:
            return name
    return name


def is_under(name: str, ref: str) -> bool:
    """Whether the dotted path ``name`` is ``ref`` or lies inside it."""
    return name == ref or name.startswith(ref + ".")


def _module_of(ref: str) -> str:
    """The module that defines ``ref`` (``ref`` itself when it is a module)."""
    parts = ref.split(".")
    for k in range(len(parts), 0, -1):
        if ".".join(parts[:k]) in _modules():
            return ".".join(parts[:k])
    return ref


def reference_hit(ex: str, dotted: str) -> str | None:
    """The reference of ``ex`` that ``dotted`` (a path into the package) reaches, or None.
    The module that defines a reference (``labsupport.batching.shapes`` for
    ``…shapes.bucket_of``) reaches it too: its attributes are one step away."""
    if not dotted.startswith(PACKAGE):
        return None
    name = canonical(dotted)
    for ref in references(ex):
        if is_under(name, ref) or is_under(dotted, ref) or name == _module_of(ref):
            return ref
    return None


def grader_only(dotted: str) -> bool:
    """Whether an answer cell may not import ``dotted`` from ``labsupport.exercises``."""
    if not is_under(dotted, "labsupport.exercises") or dotted == "labsupport.exercises":
        return False
    last = dotted.rsplit(".", 1)[-1]
    return not (last.startswith("check_") or dotted in STUDENT_HELPERS
                or canonical(dotted) in STUDENT_HELPERS)
