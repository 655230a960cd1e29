"""Static audit of what a student wrote: does it touch the grading machinery, or reuse the
lab's own answer?

``audit(source, exercises)`` returns the reasons (short strings) a code cell needs a
trainer's eyes. The cell is read as its kernel runs it (``cellcode``: IPython syntax
transformed, ``%time``'s statement audited like any other, other magics and shell escapes
refused). Reasons: rebinding ``check_*`` names or builtins; importing from
``labsupport.exercises`` anything but a check or a helper the notebook hands out; patching
imported modules (``setattr``, ``mod.attr = …``, through an alias too); ``sys.modules``,
``importlib``, ``builtins``, frames and tracers, ``exec``/``eval``, killing the process;
and, for each exercise in ``exercises``, reaching one of its reference implementations
(``labgrader.references``): by any import path, a re-export, an attribute
chain, ``getattr``, a subclass. A ``getattr`` whose name is built at run time is flagged
wherever it looks, and so is one of a frame, tracer or thread internal by a literal name;
``pydoc``, ``_thread`` and ``_imp`` are import mechanisms like ``importlib``.
A flag is not a verdict: the formgrader shows it and a trainer decides. Plain self-tests
(``check_ex02_1(Batcher)``, ``from labsupport.exercises.ex02 import check_ex02_1``) pass.
"""
from __future__ import annotations

import ast
import builtins
import re

from . import references as refs
from . import cellcode

# builtins whose rebinding is suspicious (``sum = 0`` is a habit, ``AssertionError = …`` is not)
GUARDED_BUILTINS = frozenset(
    [n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)]
    + ["isinstance", "issubclass", "getattr", "hasattr", "setattr", "delattr", "super", "type",
       "object", "callable", "globals", "vars", "exec", "eval", "compile", "open", "print",
       "get_ipython"])
DYNAMIC_CALLS = {"setattr": "setattr()", "delattr": "delattr()", "globals": "globals()",
                 "vars": "vars()", "exec": "exec()", "eval": "eval()", "compile": "compile()",
                 "__import__": "__import__()", "get_ipython": "get_ipython()",
                 "locals": "locals()", "breakpoint": "breakpoint()"}
RISKY_MODULES = {"sys", "builtins", "importlib", "gc", "ctypes", "inspect", "signal",
                 "subprocess", "multiprocessing", "pytest", "unittest", "nbgrader", "IPython",
                 "types", "traceback", "runpy", "pkgutil", "code", "codeop", "marshal",
                 "pickle", "dill", "cloudpickle", "shutil", "pty", "resource", "atexit",
                 "faulthandler", "sysconfig", "site", "zipimport", "pydoc", "_thread", "_imp"}
RISKY_ATTRS = {"modules", "settrace", "setprofile", "_getframe", "meta_path", "path_hooks",
               "__code__", "__globals__", "__builtins__", "__dict__", "__closure__",
               "__class__", "__subclasses__", "__bases__", "__mro__", "f_globals",
               "f_locals", "f_back", "f_builtins", "tb_frame", "gi_frame", "cr_frame",
               "ag_frame", "_exit", "kill", "abort", "system", "execv", "execve", "fork",
               "killpg", "excepthook", "displayhook", "__wrapped__", "__reduce__",
               "__getattribute__", "__init_subclass__", "__set_name__", "addaudithook",
               "environ", "putenv", "spawnv", "popen", "posix_spawn", "_start_new_thread",
               "start_new_thread", "start_new", "_current_frames", "gettrace"}


# what a student's string has no business naming: the grader's folders and secrets
GRADER_WORDS = re.compile(r"\bgrader\b|\bsolutions\b|gradebook|autograde|LAB_GRADER|kc08\.json",
                          re.I)


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
    def __init__(self, exercises: tuple[str, ...]):
        self.reasons: list[str] = []
        self.modules: set[str] = set()     # local names of imported modules (and aliases)
        self.paths: dict[str, str] = {}    # local name -> the dotted path it stands for
        self.exercises = exercises

    def flag(self, node: ast.AST, why: str) -> None:
        line = getattr(node, "lineno", 0)
        self.reasons.append(f"line {line}: {why}")

    # -- the lab's references ---------------------------------------------------------

    def _resolve(self, node: ast.AST) -> str | None:
        """The dotted path an expression stands for, when it is a name (or attribute
        chain) rooted in an import; else None."""
        dotted = _dotted(node)
        if not dotted:
            return None
        root, _, rest = dotted.partition(".")
        if root not in self.paths:
            return None
        return self.paths[root] + (f".{rest}" if rest else "")

    def _reference(self, node: ast.AST, dotted: str | None, how: str) -> bool:
        """Flag ``dotted`` when it reaches a reference of an exercise under audit, or is
        grader-only in ``labsupport.exercises``; True when flagged."""
        if not dotted or not dotted.startswith(refs.PACKAGE):
            return False
        for ex in self.exercises:
            ref = refs.reference_hit(ex, dotted)
            if ref:
                self.flag(node, f"{how} {dotted}: the lab's own implementation for {ex} "
                                f"({ref}); reusing it is flagged")
                return True
        if refs.grader_only(dotted) or refs.grader_only(refs.canonical(dotted)):
            self.flag(node, f"{how} {dotted}, which belongs to the grader "
                            "(labsupport.exercises gives answer cells only the checks)")
            return True
        return False

    def _bind(self, node: ast.AST, name: str) -> None:
        if name.startswith("check_"):
            self.flag(node, f"rebinds the check name {name!r}")
        elif name in GUARDED_BUILTINS:
            self.flag(node, f"rebinds the builtin {name!r}")
        elif name in {"__builtins__", "__import__"}:
            self.flag(node, f"rebinds {name}")

    # -- imports ----------------------------------------------------------------------

    def visit_Import(self, node):
        for a in node.names:
            root = a.name.split(".")[0]
            if a.name.startswith("labsupport.exercises"):
                self.flag(node, f"imports {a.name}")
            elif not self._reference(node, a.name, "imports") and root in RISKY_MODULES:
                self.flag(node, f"imports {a.name}")
            local = a.asname or root
            self.paths[local] = a.name if a.asname else root
            self.modules.add(local)
            self._bind(node, local)

    def visit_ImportFrom(self, node):
        mod = ("." * node.level) + (node.module or "")
        for a in node.names:
            full = f"{mod}.{a.name}" if a.name != "*" else mod
            if node.level:
                self.flag(node, f"imports {a.name} from the relative module {mod!r}")
            elif a.name == "*" and mod.startswith("labsupport"):
                self.flag(node, f"imports * from {mod}")
            elif not self._reference(node, full, "imports"):
                if mod == "labsupport" and a.name == "exercises":
                    self.flag(node, f"imports {a.name} from {mod}")
                elif mod.startswith("labsupport.exercises") and a.asname and \
                        a.name.startswith("check_") and a.asname != a.name:
                    self.flag(node, f"imports {a.name} from {mod} as {a.asname}")
                elif mod.split(".")[0] in RISKY_MODULES:
                    self.flag(node, f"imports {a.name} from {mod}")
            local = a.asname or a.name
            if a.name != "*":
                self.paths[local] = full
                self.modules.add(local)
                if not (local == a.name and a.name.startswith("check_")
                        and mod.startswith("labsupport.exercises")):  # a self-test's import
                    self._bind(node, local)

    # -- names, attributes, calls ----------------------------------------------------

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._bind(node, node.id)
        elif node.id in {"__builtins__", "__import__", "__loader__", "__spec__"}:
            self.flag(node, f"uses {node.id}")

    def visit_Assign(self, node):
        source = self._resolve(node.value)  # x = labsupport.batching: x stands for it too
        for t in node.targets:
            for name in _bound(t):
                if source is not None and isinstance(t, ast.Name):
                    self.paths[name] = source
                    self.modules.add(name)
                else:
                    self.paths.pop(name, None)
        self.generic_visit(node)

    def visit_FunctionDef(self, node):
        self._bind(node, node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._bind(node, node.name)
        for base in node.bases:
            self._reference(base, self._resolve(base), "subclasses")
        self.generic_visit(node)

    def visit_Global(self, node):
        for name in node.names:
            self._bind(node, name)

    visit_Nonlocal = visit_Global

    def visit_Attribute(self, node, inner: bool = False):
        dotted = _dotted(node)
        if dotted.startswith("labsupport.exercises") or ".exercises." in f".{dotted}.":
            self.flag(node, f"reaches into {dotted}")
        elif node.attr in RISKY_ATTRS:
            self.flag(node, f"uses .{node.attr}")
        elif node.attr.startswith("check_"):
            self.flag(node, f"reaches for the check {node.attr!r} on {_dotted(node.value) or 'an object'}")
        elif not inner:  # a chain is checked once, whole: a.b.c, not also a.b
            self._reference(node, self._resolve(node), "uses")
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            root = dotted.split(".")[0]
            if root in self.modules:
                self.flag(node, f"patches the imported module attribute {dotted}")
        if isinstance(node.value, ast.Attribute):
            self.visit_Attribute(node.value, inner=True)
        else:
            self.visit(node.value)

    def visit_Call(self, node):
        name = _dotted(node.func)
        short = name.rsplit(".", 1)[-1]
        if short in DYNAMIC_CALLS and (name == short or name.startswith("builtins.")):
            self.flag(node, f"calls {DYNAMIC_CALLS[short]}")
        elif name in {"importlib.reload", "importlib.import_module"}:
            self.flag(node, f"calls {name}()")
        if name in ("getattr", "hasattr") and node.args:
            target = self._resolve(node.args[0])
            attr = node.args[1] if len(node.args) > 1 else None
            literal = isinstance(attr, ast.Constant) and isinstance(attr.value, str)
            if not literal:  # what it reaches is decided at run time: nobody can read it here
                self.flag(node, f"looks up a computed name on {target or _dotted(node.args[0]) or 'an object'}"
                                " (getattr with a name built at run time)")
            elif attr.value in RISKY_ATTRS or attr.value.startswith("check_"):
                self.flag(node, f"looks up .{attr.value} with getattr")
            elif target is not None and target.startswith(refs.PACKAGE):
                self._reference(node, f"{target}.{attr.value}", "looks up")
        self.generic_visit(node)

    def visit_Constant(self, node):
        if not isinstance(node.value, str):
            return
        if "labsupport.exercises" in node.value or "labsupport/exercises" in node.value:
            self.flag(node, "names labsupport.exercises in a string")
            return
        word = GRADER_WORDS.search(node.value)
        if word:
            self.flag(node, f"names grader-only material ({word.group(0)!r}) in a string")
            return
        for path in re.findall(r"labsupport(?:[./]\w+)+", node.value):
            if self._reference(node, path.replace("/", "."), "names in a string"):
                return


def audit_tree(tree: ast.Module, exercises: tuple[str, ...] = ()) -> list[str]:
    """The audit's reasons for one parsed cell (see ``audit``)."""
    scan = _Scan(tuple(exercises))
    scan.visit(tree)
    return scan.reasons


def audit(source: str, exercises: tuple[str, ...] | list[str] = ()) -> list[str]:
    """Why this code cell needs a trainer's review; ``[]`` when it touches nothing.
    ``exercises``: the ids whose reference implementations the cell may not reach (the
    exercise of an answer cell; every exercise of the notebook for a cell of the
    student's own)."""
    tree, refused = cellcode.to_python(source)
    if tree is None:
        # it cannot run, so it cannot patch anything; still look for the obvious
        words = set(re.findall(r"[A-Za-z_][\w.]*", source))
        hits = sorted(w for w in words if "exercises" in w or w in {"setattr", "sys.modules"})
        return [f"does not parse; mentions {', '.join(hits)}"] if hits else []
    seen: list[str] = []
    for r in refused + audit_tree(tree, tuple(exercises)):
        if r not in seen:
            seen.append(r)
    return seen
