"""Which cells grading needs: the rest are demos and measurements, skipped in autograde.

A cell is *needed* when it is graded (an answer or a test cell), when it cannot be read
(a syntax error, ``from … import *``, only magics), or when it binds a name that a needed
cell after it reads. A demo cell that only reads a needed value could still change it (an
``rng`` advanced, a list appended to), so a cell that reads a needed name other than an
imported module is needed too; so is a cell that changes an imported module's state (an
attribute or item stored on it, or a call such as ``np.random.seed``, ``torch.manual_seed``,
``sys.path.append``, ``os.chdir``: see ``MUTATORS``). Names are found statically
(``ast``), inside function bodies included, so the rule errs towards running a cell.

    skip = demo_cells(nb)   # indices of the code cells grading can leave out
"""
from __future__ import annotations

import ast
import builtins
import re

BUILTINS = set(dir(builtins))
NOTE = ("[labsupport] not run while autograding: a demo or measurement that no graded cell "
        "depends on (run the notebook yourself to see it)\n")


def _tree(source: str):
    code = "\n".join("" if re.match(r"\s*[%!]", line) else line for line in source.splitlines())
    if not code.strip():
        return None  # magics only (``%matplotlib inline``): cheap, and they set the stage
    try:
        return compile(code, "<cell>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError:
        return None


# calls, on something imported, that change process-wide state a graded cell could see
MUTATORS = re.compile(r"(seed|manual_seed\w*|set_\w+|use_\w+|chdir|putenv|unsetenv|environ|"
                      r"filterwarnings|simplefilter|basicConfig|setLevel|addHandler|register\w*|"
                      r"append|extend|insert|update|setdefault|pop\w*|remove|clear|discard|"
                      r"add|setattr|delattr|reload|patch\w*|configure\w*|enable\w*|disable\w*)$")

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Opaque(Exception):
    """A cell whose names cannot be read statically (``import *``, ``global``)."""


def _scan(nodes, bound: set, read: set, imported: set) -> None:
    """Names bound and read in one scope; a nested scope adds only its free names to ``read``."""
    for node in nodes:
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            read.add(node.target.id)  # ``total += x`` reads ``total`` too
            bound.add(node.target.id)
            _scan([node.value], bound, read, imported)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                if a.name == "*":
                    raise _Opaque
                name = a.asname or a.name.split(".")[0]
                bound.add(name)
                imported.add(name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            raise _Opaque
        elif isinstance(node, _SCOPES):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
                _scan(node.decorator_list, bound, read, imported)
            inner_bound, inner_read = set(), set()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                args = node.args
                _scan(args.defaults + [d for d in args.kw_defaults if d], bound, read, imported)
                inner_bound |= {x.arg for x in args.posonlyargs + args.args + args.kwonlyargs}
                inner_bound |= {x.arg for x in (args.vararg, args.kwarg) if x}
                body = node.body if isinstance(node.body, list) else [node.body]
            elif isinstance(node, ast.ClassDef):
                _scan(node.bases + [k.value for k in node.keywords], bound, read, imported)
                body = node.body
            else:
                body = list(ast.iter_child_nodes(node))
            _scan(body, inner_bound, inner_read, set())
            read |= inner_read - inner_bound
        else:
            _scan(ast.iter_child_nodes(node), bound, read, imported)


SURE = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
        ast.Assign)  # a top-level statement of these kinds always binds its names


def names(source: str) -> tuple[set[str], set[str], set[str]] | None:
    """A cell's module-level (bound, read, imported) names — a function's free names count
    as read; a name the cell itself bound before, at its top level and unconditionally
    (``import math`` above the code that uses it), does not — or None when it must run
    whatever it binds."""
    tree = _tree(source)
    if tree is None:
        return None
    bound, read, imported, sure = set(), set(), set(), set()
    try:
        for statement in tree.body:
            b, r = set(), set()
            _scan([statement], b, r, imported)
            read |= r - sure
            bound |= b
            if isinstance(statement, SURE):
                sure |= b
    except _Opaque:
        return None
    return bound, read - BUILTINS, imported


def _root(node) -> str | None:
    """``a`` for ``a``, ``a.b.c``, ``a.b[k]``, ``a.b()``; None for anything else."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def effects(source: str) -> set[str]:
    """Names a cell changes state through, at module level: roots of attribute or item
    stores and deletes (``np.x = 1``, ``os.environ[k] = v``), and of ``MUTATORS`` calls
    (``np.random.seed(0)``, ``seed(0)``). A cell that cannot be read counts as all of them."""
    tree = _tree(source)
    if tree is None:
        return {"*"}
    out: set[str] = set()
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue  # runs only when called, and then the caller is a cell of its own
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(_root(node) or "*")
        elif isinstance(node, ast.Call):
            f = node.func
            last = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if MUTATORS.match(last):
                out.add(_root(f) or "*")
        todo.extend(ast.iter_child_nodes(node))
    return out


def _graded(cell) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return bool(meta.get("grade") or meta.get("solution"))


def demo_cells(nb) -> set[int]:
    """Indices of code cells that no graded cell depends on (see the module docstring)."""
    parsed = {i: names(c.source) for i, c in enumerate(nb.cells) if c.cell_type == "code"}
    imported = set().union(*(p[2] for p in parsed.values() if p is not None))
    shared = imported | {"*"}  # state every cell sees: imported modules and functions
    needed: set[str] = set()
    skip = set()
    for i in sorted(parsed, reverse=True):
        p = parsed[i]
        if p is not None and not _graded(nb.cells[i]):
            bound, read, _ = p
            if not (bound & needed) and not (read & (needed - imported)) and not (
                    effects(nb.cells[i].source) & shared):
                skip.add(i)
                continue
        if p is not None:
            needed |= p[1]
    return skip
