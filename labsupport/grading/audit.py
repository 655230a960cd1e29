"""Static audit of what a student wrote: does it touch the grading machinery?

``audit(source)`` returns the reasons (short strings) a code cell needs a trainer's eyes:
rebinding ``check_*`` names or builtins, reaching into ``labsupport.exercises``, patching
imported modules (``setattr``, ``mod.attr = …``), ``sys.modules``, ``importlib``,
``builtins``, frames and tracers, ``exec``/``eval``, killing the process, shell escapes.
A flag is not a verdict: the formgrader shows it and a trainer decides. Plain self-tests
(``check_ex02_1(Batcher)``, ``from labsupport.exercises.ex02 import check_ex02_1``) pass.
"""
from __future__ import annotations

import ast
import builtins
import re

# builtins whose rebinding is suspicious (``sum = 0`` is a habit, ``AssertionError = …`` is not)
GUARDED_BUILTINS = frozenset(
    [n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)]
    + ["isinstance", "issubclass", "getattr", "hasattr", "setattr", "delattr", "super", "type",
       "object", "callable", "globals", "vars", "exec", "eval", "compile", "open", "print"])
DYNAMIC_CALLS = {"setattr": "setattr()", "delattr": "delattr()", "globals": "globals()",
                 "vars": "vars()", "exec": "exec()", "eval": "eval()", "compile": "compile()",
                 "__import__": "__import__()", "get_ipython": "get_ipython()"}
RISKY_MODULES = {"sys", "builtins", "importlib", "gc", "ctypes", "inspect", "signal",
                 "subprocess", "multiprocessing", "pytest", "unittest", "nbgrader", "IPython",
                 "types", "traceback"}
RISKY_ATTRS = {"modules", "settrace", "setprofile", "_getframe", "meta_path", "path_hooks",
               "__code__", "__globals__", "__builtins__", "__dict__", "__closure__",
               "__class__", "__subclasses__", "__bases__", "__mro__", "f_globals",
               "f_locals", "f_back", "f_builtins", "tb_frame", "gi_frame", "cr_frame",
               "_exit", "kill", "abort", "system", "execv", "execve", "fork", "killpg",
               "excepthook", "displayhook"}
SAFE_MAGICS = {"matplotlib", "time", "timeit"}


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _bound(target: ast.AST):
    """Names a binding target binds (``a, (b, c) = …``)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for t in target.elts:
            yield from _bound(t)
    elif isinstance(target, ast.Starred):
        yield from _bound(target.value)


class _Scan(ast.NodeVisitor):
    def __init__(self):
        self.reasons: list[str] = []
        self.modules: set[str] = set()  # local names bound by import statements

    def flag(self, node: ast.AST, why: str) -> None:
        line = getattr(node, "lineno", 0)
        self.reasons.append(f"line {line}: {why}")

    def _bind(self, node: ast.AST, name: str) -> None:
        if name.startswith("check_"):
            self.flag(node, f"rebinds the check name {name!r}")
        elif name in GUARDED_BUILTINS:
            self.flag(node, f"rebinds the builtin {name!r}")
        elif name in {"__builtins__", "__import__"}:
            self.flag(node, f"rebinds {name}")

    def visit_Import(self, node):
        for a in node.names:
            root = a.name.split(".")[0]
            if a.name.startswith("labsupport.exercises"):
                self.flag(node, f"imports {a.name}")
            if root in RISKY_MODULES:
                self.flag(node, f"imports {a.name}")
            local = a.asname or root
            self.modules.add(local)
            self._bind(node, local)

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        checks = mod.startswith("labsupport.exercises")
        for a in node.names:
            if checks and mod != "labsupport.exercises" and a.asname is None:
                continue  # a check or helper, under its own name: a self-test, not a patch
            if checks or (mod == "labsupport" and a.name == "exercises"):
                self.flag(node, f"imports {a.name} from {mod}")
            elif mod.split(".")[0] in RISKY_MODULES:
                self.flag(node, f"imports {a.name} from {mod}")
            local = a.asname or a.name
            self.modules.add(local)
            self._bind(node, local)

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._bind(node, node.id)
        elif node.id in {"__builtins__", "__import__", "__loader__", "__spec__"}:
            self.flag(node, f"uses {node.id}")

    def visit_FunctionDef(self, node):
        self._bind(node, node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._bind(node, node.name)
        self.generic_visit(node)

    def visit_Global(self, node):
        for name in node.names:
            self._bind(node, name)

    visit_Nonlocal = visit_Global

    def visit_Attribute(self, node):
        dotted = _dotted(node)
        if dotted.startswith("labsupport.exercises") or ".exercises." in f".{dotted}.":
            self.flag(node, f"reaches into {dotted}")
        elif node.attr in RISKY_ATTRS:
            self.flag(node, f"uses .{node.attr}")
        elif node.attr.startswith("check_"):
            self.flag(node, f"reaches for the check {node.attr!r} on {_dotted(node.value) or 'an object'}")
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            root = dotted.split(".")[0]
            if root in self.modules:
                self.flag(node, f"patches the imported module attribute {dotted}")
        self.generic_visit(node)

    def visit_Call(self, node):
        name = _dotted(node.func)
        short = name.rsplit(".", 1)[-1]
        if short in DYNAMIC_CALLS and (name == short or name.startswith("builtins.")):
            self.flag(node, f"calls {DYNAMIC_CALLS[short]}")
        elif name in {"importlib.reload", "importlib.import_module"}:
            self.flag(node, f"calls {name}()")
        self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, str) and ("labsupport.exercises" in node.value
                                            or "labsupport/exercises" in node.value):
            self.flag(node, "names labsupport.exercises in a string")


def _magics(source: str) -> tuple[str, list[str]]:
    """Python source with IPython lines blanked, and the reasons those lines need review."""
    reasons, lines = [], []
    for i, line in enumerate(source.splitlines(), 1):
        m = re.match(r"\s*(%%?|!)\s*(\w*)", line)
        if m:
            if m.group(1) == "!" or m.group(2) not in SAFE_MAGICS:
                reasons.append(f"line {i}: runs {line.strip()[:40]!r} (shell or magic)")
            line = ""
        lines.append(line)
    return "\n".join(lines), reasons


def audit(source: str) -> list[str]:
    """Why this code cell needs a trainer's review; ``[]`` when it touches nothing."""
    code, reasons = _magics(source)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        # it cannot run, so it cannot patch anything; still look for the obvious
        words = set(re.findall(r"[A-Za-z_][\w.]*", code))
        hits = sorted(w for w in words if "exercises" in w or w in {"setattr", "sys.modules"})
        return reasons + [f"does not parse; mentions {', '.join(hits)}"] if hits else reasons
    scan = _Scan()
    scan.visit(tree)
    seen: list[str] = []
    for r in reasons + scan.reasons:
        if r not in seen:
            seen.append(r)
    return seen
