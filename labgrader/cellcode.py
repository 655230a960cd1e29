"""A code cell as the Python its kernel runs: IPython's own input transformer first (so
``%time``, ``!cmd``, ``x = !cmd``, ``/f a`` mean here what they mean in the kernel), then
the harmless magics made plain — ``%time``/``%timeit`` (line or cell) become the statement
they time, ``%matplotlib`` goes — and every other magic or shell escape is *refused*: it
stays a ``get_ipython()`` call, which fails where no kernel runs, and is given as a reason.
The audit reads the resulting syntax tree (nothing is hidden behind a magic any more) and the
trusted pass runs it.
"""
from __future__ import annotations

import ast
import re

TIMED = ("time", "timeit")      # run their statement: audited as that statement
DROPPED = ("matplotlib",)       # backend selection: nothing to run
_MAGIC_CALLS = ("run_line_magic", "run_cell_magic", "system", "getoutput")
_TIMEIT_OPTS = re.compile(r"^\s*(?:-[nr]\s*\d+|-p\s*\d+|-[qoc])\s*")


def _transformer():
    from IPython.core.inputtransformer2 import TransformerManager
    return TransformerManager()


def _magic(node: ast.AST) -> tuple[str, list] | None:
    """``(method, args)`` for ``get_ipython().<method>(<constant args>)``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in _MAGIC_CALLS and isinstance(node.func.value, ast.Call)
            and isinstance(node.func.value.func, ast.Name)
            and node.func.value.func.id == "get_ipython"):
        return None
    if not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args):
        return None
    return node.func.attr, [a.value for a in node.args]


def _body(code: str, at: ast.AST, mode: str):
    """``code`` parsed and moved to the line of ``at``; None if it does not parse."""
    try:
        tree = ast.parse(code, mode=mode)
    except SyntaxError:
        return None
    ast.increment_lineno(tree, getattr(at, "lineno", 1) - 1)
    return tree


class _Plain(ast.NodeTransformer):
    def __init__(self):
        self.refused: list[str] = []

    def _refuse(self, node, method: str, args: list) -> None:
        first = args[0] if args else ""
        what = {"system": f"!{first}", "getoutput": f"!{first}",
                "run_line_magic": f"%{' '.join(args)}", "run_cell_magic": f"%%{first}"}[method]
        self.refused.append(f"line {getattr(node, 'lineno', 0)}: runs {what.strip()[:40]!r} "
                            "(magics and shell escapes other than %time, %timeit and "
                            "%matplotlib are refused in graded cells)")

    def _statement(self, method: str, args: list) -> str | None:
        if method == "run_line_magic" and args[0] in TIMED:
            return _TIMEIT_OPTS.sub("", args[1]) if args[0] == "timeit" else args[1]
        if method == "run_cell_magic" and args[0] in TIMED:
            return args[2] if len(args) > 2 else ""
        return None

    def visit_Expr(self, node):
        found = _magic(node.value)
        if found is None:
            return self.generic_visit(node)
        method, args = found
        if method == "run_line_magic" and args and args[0] in DROPPED:
            return ast.copy_location(ast.Pass(), node)
        code = self._statement(method, args) if args else None
        if code is not None:
            tree = _body(code, node, "exec")
            if tree is not None:
                return [self.visit(s) for s in tree.body] or ast.copy_location(ast.Pass(), node)
        self._refuse(node, method, args)
        return node

    def visit_Call(self, node):
        found = _magic(node)
        if found is None:
            return self.generic_visit(node)
        method, args = found
        code = self._statement(method, args) if args else None
        if code is not None and method == "run_line_magic":
            tree = _body(code, node, "eval")
            if tree is not None:
                return self.visit(tree.body)
        self._refuse(node, method, args)
        return node


def to_python(source: str) -> tuple[ast.Module | None, list[str]]:
    """``(tree, refused)``: the cell as the syntax tree of plain Python (None when it does
    not parse even after IPython's transformer) and why its refused parts need a trainer."""
    try:
        code = _transformer().transform_cell(source)
    except Exception:  # noqa: BLE001 - IPython could not read it: nor will the kernel
        code = source
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None, []
    plain = _Plain()
    tree = ast.fix_missing_locations(plain.visit(tree))
    return tree, plain.refused


def python_source(source: str) -> str:
    """The cell as plain Python source (``to_python``, unparsed); the source itself when it
    does not parse (running it then fails the same way it did in the kernel) or is nested too
    deep to walk (the judge compiles it as it is; the copy check marks it unreadable)."""
    try:
        tree, _ = to_python(source)
        return ast.unparse(tree) if tree is not None else source
    except (RecursionError, MemoryError):
        return source


def without_magics(source: str) -> str:
    """``source`` with every line that starts with ``%`` or ``!`` blanked (line numbers
    kept): the trusted pass runs a cell's Python, never a magic."""
    return "\n".join("" if re.match(r"\s*[%!]", line) else line for line in source.splitlines())


def run_cell(source: str, ns: dict, name: str) -> None:
    """Run a cell's code (``without_magics``) in the namespace ``ns`` as ``name``, top-level
    ``await`` included."""
    import asyncio
    import inspect
    code = compile(without_magics(source), name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(code, ns)  # noqa: S307 - the code under grading, in a throw-away child
    if inspect.iscoroutine(result):
        asyncio.run(result)
