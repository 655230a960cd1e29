"""One way to write the same code, for the copy review (``labgrader.similarity``): a
piece of code's syntax tree with what a copier changes without changing the code undone.

``normalised(source)`` first reaches every piece of state one way (``spelling``:
``getattr(x, 'k')``, ``self.s['k']``, ``self.t.k`` with ``self.t`` a holder are ``x.k``; named
constants are their values), then puts the code in one canonical form (``_Canonical``): a lambda
is a function of its own, a walrus an assignment before its statement, ``return a if c else
b`` an ``if`` and two returns. Then a copier's edits are undone (``_rewritten``, ``_Order``;
redteam8): a helper of the answer that computes from its arguments alone is written out where
it is called (so a part pulled out into a function and a function written out at each call
meet), ``x += y`` is ``x = x + y`` and a tuple update ``a, b = a + c, b + d`` two assignments,
a value named only on its way into the next statement is written out there, a function's
leading argument checks (calls of the module's functions on its parameters,
``check_float("x", x, 0.0)``) are dropped, arguments by keyword are arguments by position,
``a > b`` is ``b < a``, a ``+``/``*`` chain is flattened with its constants last, and the
operands of ``and``/``or``, ``==``/``!=`` and ``min``/``max`` are in one order by kind. Each
was narrowed where it made an honest answer the solution (a formula's named steps stay,
arithmetic operands of one kind keep their order, a closure stays). Last, ``_Normalise``:
every name, argument and defined name becomes ``_`` (builtins keep theirs, attribute names
stay), imports, docstrings, annotations, ``print`` calls, decorators and checks (``assert``,
``raise``, an ``if`` that only raises) are dropped — but for a lambda or a walrus inside
them, which is code that runs, not a check — and constants keep only their type.
"""
from __future__ import annotations

import ast
import builtins
import copy
from collections import Counter

from .spelling import spelled_one_way

BUILTINS = frozenset(dir(builtins))
STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers")


def _runs_code(node: ast.AST) -> bool:
    """Whether ``node`` defines code or binds a name (a lambda, a walrus): such a part of a
    check, decorator or print is no check, and is compared."""
    return any(isinstance(n, (ast.Lambda, ast.NamedExpr)) for n in ast.walk(node))


class _Canonical(ast.NodeTransformer):
    """One way to write the same code: a lambda becomes a function of its own (at the end of
    the module), a walrus an assignment before the statement it is in (a lambda's: first in
    its function), and ``return a if c else b`` becomes ``if c: return a`` then ``return b``
    (so does a lambda's body)."""

    def __init__(self):
        self.defs: list[ast.stmt] = []
        self.hoisted: list[ast.stmt] = []  # the current statement's walruses, as assignments

    def visit_Module(self, node):
        self.generic_visit(node)
        node.body += self.defs
        return node

    def visit_Lambda(self, node):
        outer, self.hoisted = self.hoisted, []  # its walruses: its own statements
        self.generic_visit(node)
        body, self.hoisted = self.hoisted + self._returns(node.body), outer
        self.defs.append(ast.FunctionDef(name="_", args=node.args, body=body,
                                         decorator_list=[], returns=None, type_comment=None))
        return ast.copy_location(ast.Name(id="_", ctx=ast.Load()), node)

    def visit_NamedExpr(self, node):
        self.generic_visit(node)
        self.hoisted.append(ast.Assign(targets=[node.target], value=node.value))
        return ast.copy_location(ast.Name(id=node.target.id, ctx=ast.Load()), node)

    def _returns(self, value) -> list[ast.stmt]:
        if isinstance(value, ast.IfExp):
            return [ast.If(test=value.test, body=self._returns(value.body), orelse=[]),
                    *self._returns(value.orelse)]
        return [ast.Return(value=value)]

    def _statements(self, statements: list) -> list:
        out = []
        for s in statements:
            outer, self.hoisted = self.hoisted, []
            s = self.visit(s)
            out += self.hoisted
            self.hoisted = outer
            if isinstance(s, ast.Return) and isinstance(s.value, ast.IfExp):
                out += self._returns(s.value)
            elif s is not None:
                out.append(s)
        return out

    def generic_visit(self, node):
        for name, value in ast.iter_fields(node):
            if isinstance(value, list) and value and all(isinstance(v, ast.stmt) for v in value):
                setattr(node, name, self._statements(value))
            elif isinstance(value, list):
                setattr(node, name, [self.visit(v) if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, name, self.visit(value))
        return node


# ---- copier edits: one form for code written another way (before names are normalised) ----

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
WINDOW = 20  # a temporary is written out where it is read within this many statements (a chain
#              of them at most this long)


def _bound(target: ast.expr) -> set[str] | None:
    """The names a name or a tuple of names binds; None for any other target."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        out: set[str] = set()
        for e in target.elts:
            got = _bound(e)
            if got is None:
                return None
            out |= got
        return out
    return None


def _split(s: ast.stmt, force: bool = False) -> list[ast.stmt]:
    """``x op= y`` as ``x = x op y``; a tuple update ``a, b = a + c, b + d`` (each value reads
    its own name) as ``a = a + c`` then ``b = b + d``, and with ``force`` any ``a, b = c, d``
    (at any depth), where no value reads a name bound before it (a swap stays as it is)."""
    if isinstance(s, ast.AugAssign):
        load = copy.deepcopy(s.target)
        load.ctx = ast.Load()
        return [ast.copy_location(ast.Assign(targets=[s.target], value=ast.BinOp(
            left=load, op=s.op, right=s.value)), s)]
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], (ast.Tuple, ast.List))
            and isinstance(s.value, (ast.Tuple, ast.List))
            and len(s.targets[0].elts) == len(s.value.elts)):
        return [s]
    bound: set[str] = set()
    out = []
    for t, v in zip(s.targets[0].elts, s.value.elts):
        names = _bound(t)
        read = {n.id for n in ast.walk(v) if isinstance(n, ast.Name)}
        if names is None or isinstance(v, ast.Starred) or bound & read or \
                not (force or (isinstance(t, ast.Name) and t.id in read)):
            return [s]
        bound |= names
        out += _split(ast.copy_location(ast.Assign(targets=[t], value=v), s), force)
    return out


def _helper_body(fn: ast.AST) -> tuple[list[str], list[ast.Assign], ast.expr] | None:
    """(parameters, assignments, returned value) of a function that is plain positional
    parameters and assignments to single names then one ``return`` of a value, calling
    nothing of its name and assigning none of its parameters; None for any other."""
    a = fn.args if isinstance(fn, ast.FunctionDef) else None
    if a is None or fn.decorator_list or a.posonlyargs or a.vararg or a.kwonlyargs or \
            a.kwarg or a.defaults:
        return None
    body = fn.body[1:] if fn.body and isinstance(fn.body[0], ast.Expr) and \
        isinstance(fn.body[0].value, ast.Constant) else fn.body
    if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None or not all(
            isinstance(s, ast.Assign) and len(s.targets) == 1 and
            isinstance(s.targets[0], ast.Name) for s in body[:-1]):
        return None
    params = [p.arg for p in a.args]
    for n in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(n, (*SCOPES, ast.Yield, ast.YieldFrom, ast.Await, ast.Global,
                          ast.Nonlocal)) or (isinstance(n, ast.Name) and (
                n.id == fn.name or (n.id in params and not isinstance(n.ctx, ast.Load)))):
            return None
    return params, body[:-1], body[-1].value


def _free(fn: ast.FunctionDef) -> set[str]:
    """The names ``fn`` reads that it does not bind."""
    names = [n for n in ast.walk(fn) if isinstance(n, ast.Name)]
    return {n.id for n in names if isinstance(n.ctx, ast.Load)} - \
        {n.id for n in names if not isinstance(n.ctx, ast.Load)} - \
        {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}


class _Rename(ast.NodeTransformer):
    """Names replaced: by another name (a str) or by a copy of an expression."""

    def __init__(self, names: dict):
        self.names = names

    def visit_Name(self, node):
        new = self.names.get(node.id)
        if new is None:
            return node
        if isinstance(new, str):
            return ast.copy_location(ast.Name(id=new, ctx=node.ctx), node)
        return copy.deepcopy(new)


class _Helpers(ast.NodeTransformer):
    """A helper of the answer (``_helper_body``) that reads no name another function or class
    binds (a function of its arguments, not a closure) written out where it is called, so that a
    copy with a part pulled out into a function and one with a function written out at each
    call meet: a one-``return`` helper at any call, one with assignments where it is the
    value of an assignment (its locals renamed apart). Augmented assignments and tuple updates
    are split (``_split``). Each helper is defined once and used only in calls of as many plain
    arguments; it is dropped once no call is left. At most as many nodes as the tree has
    are added (a helper calling helpers cannot blow it up)."""

    def __init__(self, tree: ast.Module):
        nodes = list(ast.walk(tree))
        names = [n for n in nodes if isinstance(n, ast.Name)]
        defs = Counter(n.name for n in nodes if isinstance(n, SCOPES[:3]))
        stores = Counter(n.id for n in names if not isinstance(n.ctx, ast.Load))
        self.budget = len(nodes)
        self.helpers = {}
        local = {n.id if isinstance(n, ast.Name) else n.arg  # bound in a function or class
                 for top in tree.body if isinstance(top, SCOPES) for n in ast.walk(top)
                 if isinstance(n, ast.arg) or (isinstance(n, ast.Name) and
                                               not isinstance(n.ctx, ast.Load))}
        for fn in nodes:
            got = _helper_body(fn) if isinstance(fn, ast.FunctionDef) else None
            if got and defs[fn.name] == 1 and not stores[fn.name] and not _free(fn) & local:
                self.helpers[fn.name] = got
        if self.helpers:
            calls = {id(n.func) for n in nodes if isinstance(n, ast.Call)
                     and isinstance(n.func, ast.Name) and n.func.id in self.helpers
                     and not n.keywords and len(n.args) == len(self.helpers[n.func.id][0])
                     and not any(isinstance(x, ast.Starred) for x in n.args)}
            for n in names:  # a helper named anywhere but as a call is left as it is
                if n.id in self.helpers and id(n) not in calls:
                    del self.helpers[n.id]
        self.fresh = 0
        self.used: set[str] = set()  # the helpers written out somewhere
        self.returned: set[int] = set()  # assignments of what a written-out helper returns

    def _call(self, node) -> tuple | None:
        """(helper, its arguments) for a call of a helper while the budget lasts."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in self.helpers and not node.keywords and \
                len(node.args) == len(self.helpers[node.func.id][0]) and self.budget > 0:
            return self.helpers[node.func.id], node.args
        return None

    def _expand(self, helper, args) -> tuple[list[ast.stmt], ast.expr]:
        params, assigns, value = helper
        self.used.add(next(k for k, v in self.helpers.items() if v is helper))
        self.fresh += 1
        names = {**{a.targets[0].id: f"{a.targets[0].id}_{self.fresh}" for a in assigns},
                 **dict(zip(params, args))}
        out = [_Rename(names).visit(copy.deepcopy(s)) for s in assigns]
        value = _Rename(names).visit(copy.deepcopy(value))
        self.budget -= sum(1 for s in [*out, value] for _ in ast.walk(s))
        return out, value

    def visit_Call(self, node):
        self.generic_visit(node)
        got = self._call(node)
        if got is None or got[0][1]:
            return node
        return self.visit(self._expand(*got)[1])

    def _statements(self, statements: list) -> list:
        out = []
        for s in statements:
            calls = isinstance(s, ast.Assign) and isinstance(s.value, (ast.Tuple, ast.List)) \
                and any(self._call(v) for v in s.value.elts)
            for s in _split(s, force=calls):  # helpers' values assigned to a tuple of names
                got = self._call(s.value) if isinstance(s, ast.Assign) else None
                if got is not None and got[0][1]:
                    assigns, value = self._expand(*got)
                    s.value = value
                    parts = _split(s, force=True)
                    self.returned |= {id(p) for p in parts}
                    out += self._statements(assigns) + self._statements(parts)
                    continue
                s = self.visit(s)
                if s is not None:
                    out += _split(s) if isinstance(s, ast.Assign) else [s]
        return out

    def generic_visit(self, node):
        for name, value in ast.iter_fields(node):
            if isinstance(value, list) and value and all(isinstance(v, ast.stmt) for v in value):
                setattr(node, name, self._statements(value) or [ast.Pass()])
            elif isinstance(value, list):
                setattr(node, name, [self.visit(v) if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, name, self.visit(value))
        return node

    def drop_unused(self, tree: ast.Module) -> ast.Module:
        """The helpers no call is left of, dropped."""
        if not self.used:
            return tree
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        gone = self.used - used
        for node in ast.walk(tree):
            for name in STATEMENT_LISTS[:3]:
                body = getattr(node, name, None)
                if isinstance(body, list) and any(isinstance(s, ast.FunctionDef) and s.name in gone
                                                  for s in body):
                    setattr(node, name, [s for s in body if not (
                        isinstance(s, ast.FunctionDef) and s.name in gone)] or [ast.Pass()])
        return tree


def _is_check(s: ast.stmt) -> bool:
    """``assert``, ``raise``, an ``if`` that only raises, a bare string: what ``_Normalise``
    drops."""
    return isinstance(s, (ast.Assert, ast.Raise)) or (
        isinstance(s, ast.If) and not s.orelse and
        all(isinstance(b, (ast.Raise, ast.Assert)) for b in s.body)) or (
        isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))


class _Scope:
    """One function's own statements (not those of the functions and classes in it): its
    temporaries, names assigned once (``name = value``) and read once, in a later statement of
    the same block that only assignments and checks separate it from (within ``WINDOW``), not
    in a loop or a comprehension of it, with nothing the value reads changed in between
    (``x = …``, ``x[i] = …``, ``x.a = …``). Such a name is written out where it is read when it
    is a value on its way into a statement (``seq = waiting.popleft()`` then
    ``running.append(seq)``) or what a written-out helper returned; a step of a formula
    (read by another assignment that stays) and a value only a check reads stay. Written out
    as well, the steps made the honest ex05_6 answer (four named steps) the solution's code."""

    def __init__(self, fn, inner: dict, returned: set = frozenset()):
        self.returned = returned
        self.stores: Counter = Counter()
        self.loads: dict[str, list] = {}
        self.assigned: dict[str, tuple] = {}  # name -> (its block, index, the statement)
        self.changes: dict[tuple, set] = {}  # (block, index) -> names stored in it
        self.blocks: dict[int, list] = {}
        self.outside = set()  # names of nested scopes, global and nonlocal names
        self.inner = inner
        for p in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs,
                  *filter(None, [fn.args.vararg, fn.args.kwarg])):
            self.stores[p.arg] += 2
        self._block(fn.body, (), ())

    def _block(self, body: list, path: tuple, full: tuple):
        self.blocks[id(body)] = body
        for k, s in enumerate(body):
            here = (id(body), k)
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                    isinstance(s.targets[0], ast.Name):
                self.assigned.setdefault(s.targets[0].id, (id(body), k, s))
            self._node(s, path + (here,), full + (here,))

    def _node(self, node, path: tuple, full: tuple):
        if isinstance(node, SCOPES):
            self.outside |= self.inner.get(id(node), set())
            return
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            self.outside.update(node.names)
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                self.loads.setdefault(node.id, []).append((node, path))
            else:
                self.stores[node.id] += 1
                for where in full:
                    self.changes.setdefault(where, set()).add(node.id)
            return
        if isinstance(node, (ast.Subscript, ast.Attribute)) and \
                not isinstance(node.ctx, ast.Load):  # x[i] = …, x.a = …: x changes
            root = node
            while isinstance(root, (ast.Subscript, ast.Attribute)):
                root = root.value
            if isinstance(root, ast.Name):
                for where in full:
                    self.changes.setdefault(where, set()).add(root.id)
        repeated = isinstance(node, (ast.While, *COMPREHENSIONS))
        if isinstance(node, COMPREHENSIONS):
            full = ()  # its variables are its own
        for name, value in ast.iter_fields(node):
            again = repeated or (isinstance(node, (ast.For, ast.AsyncFor))
                                 and name in ("target", "body"))
            if isinstance(value, list) and value and all(isinstance(v, ast.stmt) for v in value):
                self._block(value, () if again else path, full)
            else:
                for v in value if isinstance(value, list) else [value]:
                    if isinstance(v, ast.AST):
                        self._node(v, () if again else path, full)

    def temporaries(self) -> dict[int, ast.Assign]:
        """id of the one read of each temporary -> its assignment."""
        found = {}  # id of an assignment -> (its read, the statement that reads it)
        for name, (block, k, s) in self.assigned.items():
            reads = self.loads.get(name, [])
            if self.stores[name] != 1 or len(reads) != 1 or name in self.outside:
                continue
            node, path = reads[0]
            at = next((j for b, j in path if b == block), -1)
            body = self.blocks[block]
            if not k < at <= k + WINDOW or not all(isinstance(b, ast.Assign) or _is_check(b)
                                                   for b in body[k + 1:at]):
                continue
            read = {n.id for n in ast.walk(s.value) if isinstance(n, ast.Name)}
            if not _is_check(body[at]) and not any(  # a value only a check reads stays
                    read & self.changes.get((block, j), set()) for j in range(k + 1, at + 1)):
                found[id(s)] = (node, body[at])
        out: dict[int, ast.Assign] = {}
        depth: dict[int, int] = {}  # id of an assignment written out -> its chain's length
        for _, k, s in sorted(self.assigned.values(), key=lambda a: -a[1]):  # readers first
            if id(s) not in found:
                continue
            node, user = found[id(s)]
            if id(s) in self.returned or not isinstance(user, ast.Assign):
                depth[id(s)] = 1
            elif id(user) in depth and depth[id(user)] < WINDOW:  # into a step written out too
                depth[id(s)] = depth[id(user)] + 1
            else:
                continue  # a step of a formula, named as such, stays
            out[id(node)] = s
        return out


class _Inline(ast.NodeTransformer):
    """Each temporary (``_Scope``) written out where it is read, its assignment dropped."""

    def __init__(self, reads: dict[int, ast.Assign]):
        self.reads = reads
        self.drop = {id(s) for s in reads.values()}

    def visit(self, node):
        if id(node) in self.drop:
            return None
        s = self.reads.get(id(node))
        return self.visit(s.value) if s is not None else super().visit(node)


def _rewritten(tree: ast.Module) -> ast.Module:
    """Copier edits undone: helpers written out where they are called, tuple updates and
    augmented assignments split (``_Helpers``), then temporaries written out where they are
    read (``_Scope``)."""
    helpers = _Helpers(tree)
    tree = helpers.drop_unused(helpers.visit(tree))
    inner: dict[int, set] = {}
    reads: dict[int, ast.Assign] = {}
    for node in reversed(list(ast.walk(tree))):  # inner scopes first
        if isinstance(node, SCOPES):
            scope = _Scope(node, inner, helpers.returned) if isinstance(node, (ast.FunctionDef,
                                                               ast.AsyncFunctionDef)) else None
            if scope is not None:
                reads.update(scope.temporaries())
                names = set(scope.stores) | set(scope.loads) | scope.outside
            else:
                names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            inner[id(node)] = names
    return _Inline(reads).visit(tree) if reads else tree


# ---- after names are normalised: one order for operands that commute ----------------------

COMMUTE = (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)
TURNED = {ast.Gt: ast.Lt, ast.GtE: ast.LtE}
SIDES = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)


class _Order(ast.NodeTransformer):
    """Operands in one order: a chain of ``+`` (``*``, ``&``, ``|``, ``^``) flattened, its
    constants last (``2.0 * p`` as ``p * 2.0``); the operands of ``and``/``or``, both sides of
    ``==``, ``!=``, ``is``, ``is not`` and the arguments of ``min``/``max`` by their kind (a
    name, an attribute, a call, a comparison…), as written among those of one kind, so that
    an edit inside an operand never moves it (the token stream survives it); ``a > b`` as
    ``b < a``, ``a >= b`` as ``b <= a``. Sorting the operands of arithmetic by kind as well
    made the honest ex03_3 answer (``new_top * (len(batch) + 1)``) the solution."""

    @staticmethod
    def _sorted(nodes: list) -> list:
        return sorted(nodes, key=lambda n: type(n).__name__)

    def visit_BinOp(self, node):
        if not isinstance(node.op, COMMUTE):
            return self.generic_visit(node)
        operands, todo = [], [node]
        while todo:  # the chain's operands, without recursing along it
            n = todo.pop()
            if isinstance(n, ast.BinOp) and type(n.op) is type(node.op):
                todo += [n.right, n.left]
            else:
                operands.append(self.visit(n))
        operands = [o for o in operands if not isinstance(o, ast.Constant)] + \
            [o for o in operands if isinstance(o, ast.Constant)]
        out = operands[0]
        for o in operands[1:]:
            out = ast.copy_location(ast.BinOp(left=out, op=type(node.op)(), right=o), node)
        return out

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        node.values = self._sorted(node.values)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if all(type(op) in TURNED for op in node.ops):
            items = [node.left, *node.comparators][::-1]
            node = ast.copy_location(ast.Compare(left=items[0], ops=[
                TURNED[type(op)]() for op in node.ops[::-1]], comparators=items[1:]), node)
        elif len(node.ops) == 1 and isinstance(node.ops[0], SIDES):
            node.left, node.comparators[0] = self._sorted([node.left, node.comparators[0]])
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max") and \
                len(node.args) > 1 and not node.keywords and \
                not any(isinstance(a, ast.Starred) for a in node.args):
            node.args = self._sorted(node.args)
        return node


def normalised(source: str) -> ast.Module:
    """``source``'s tree, its state reached one way (``spelling``), canonical
    (``_Canonical``) and normalised (``_Normalise``); raises what ``ast.parse`` and a too
    deep walk raise."""
    tree = _rewritten(_Canonical().visit(spelled_one_way(ast.parse(source))))
    return ast.fix_missing_locations(_Order().visit(_Normalise().visit(tree)))


def _unchecked(fn) -> list[ast.stmt]:
    """``fn``'s body without the argument checks it starts with: calls of a function of the
    module's (not a parameter's, not a method) whose value it drops, each passed a parameter
    (``check_float("x", x, 0.0)``), or a loop of such calls over parameters; a check hides no
    code (a lambda, a walrus)."""
    params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}

    def reads(node, names) -> bool:
        return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))

    def call(s, names) -> bool:  # a function of the module's (not a parameter, not a method)
        f = s.value.func if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) else None
        return isinstance(f, ast.Name) and f.id not in names and \
            any(reads(a, names) for a in [*s.value.args, *(k.value for k in s.value.keywords)])

    body = fn.body
    while body and (call(body[0], params) or (
            isinstance(body[0], ast.For) and not body[0].orelse and reads(body[0].iter, params)
            and all(call(s, params | {n.id for n in ast.walk(body[0].target)
                                      if isinstance(n, ast.Name)}) for s in body[0].body))) \
            and not _runs_code(body[0]):
        body = body[1:]
    return body


class _Normalise(ast.NodeTransformer):
    """Names, docstrings, annotations, constants and checks as described above."""

    def _drop_doc(self, node):
        body = getattr(node, "body", None)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
        return node

    def visit_Import(self, node):
        return None  # where a name comes from is not the code

    def visit_Subscript(self, node):
        """``x[:]`` read is ``list(x)``, a copy either way (redteam16 ``pool_renamed``)."""
        self.generic_visit(node)
        cut = node.slice
        if isinstance(node.ctx, ast.Load) and isinstance(cut, ast.Slice) and \
                cut.lower is None and cut.upper is None and cut.step is None:
            return ast.copy_location(ast.Call(func=ast.Name(id="list", ctx=ast.Load()),
                                              args=[node.value], keywords=[]), node)
        return node

    visit_ImportFrom = visit_Import

    def visit_Name(self, node):
        return ast.copy_location(ast.Name(id=node.id if node.id in BUILTINS else "_",
                                          ctx=ast.Load()), node)

    def visit_arg(self, node):
        return ast.copy_location(ast.arg(arg="_", annotation=None), node)

    def visit_Constant(self, node):
        return ast.copy_location(ast.Constant(value=type(node.value).__name__), node)

    def _def(self, node):
        self._drop_doc(node)
        if not isinstance(node, ast.ClassDef):
            node.body = _unchecked(node) or [ast.Pass()]
        node.name = "_"
        node.decorator_list = [d for d in node.decorator_list if _runs_code(d)]
        if hasattr(node, "returns"):
            node.returns = None
        return self.generic_visit(node)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _def

    def visit_AnnAssign(self, node):
        if node.value is None:
            return None
        return self.generic_visit(ast.copy_location(
            ast.Assign(targets=[node.target], value=node.value), node))

    def visit_Assert(self, node):
        return self._kept(node.test, node)

    def visit_Raise(self, node):
        return self._kept(node.exc, node)

    def _kept(self, value, node):
        """A check is dropped, but code hidden in one (a lambda, a walrus) still counts."""
        if value is None or not _runs_code(value):
            return None
        return self.generic_visit(ast.copy_location(ast.Expr(value=value), node))

    def visit_Call(self, node):
        """Arguments by keyword as arguments by position (a keyword is a name)."""
        self.generic_visit(node)
        node.args += [k.value for k in node.keywords if k.arg is not None]
        node.keywords = [k for k in node.keywords if k.arg is None]
        return node

    def visit_If(self, node):
        if all(isinstance(s, (ast.Raise, ast.Assert)) for s in node.body) and not node.orelse \
                and not any(_runs_code(s) for s in [node.test, *node.body]):
            return None
        return self.generic_visit(node)

    def visit_Expr(self, node):
        v = node.value
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "print" \
                and not _runs_code(v):
            return None
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            return None  # a bare string: a docstring or a comment in disguise
        return self.generic_visit(node)
