"""Copying as a review flag: how much of an answer cell is, up to renaming and reordering,
the lab's own code or another student's answer.

Each piece of code is reduced to a *multiset of normalised subtrees* of its syntax tree:
every name, argument and defined name becomes ``_`` (builtins keep theirs, attribute names
stay), imports, docstrings, annotations, ``print`` calls, decorators and checks
(``assert``, ``raise``, an ``if`` that only raises) are dropped — but for a lambda or a walrus
inside them, which is code that runs, not a check — constants keep only their
type, and a compound statement is hashed without its body, whose statements count on their
own — so renaming locals, dropping checks or reordering statements changes nothing. Each
subtree of at least ``MIN_NODES`` nodes weighs its size. What the release gives everyone
(the answer cell's stub) is taken out of both sides. Two pieces score the Dice coefficient
of their weighted multisets, 2·|A∩B| / (|A|+|B|), 0 to 1, and an answer is also scored by the
share of the other piece it holds, |A∩B| / |B| (``contained``: padding, a line of huge
syntactic weight or a copy cut in two lower the Dice, not this); MOSS compares fingerprints
of token k-grams and reports both files' shares the same way; subtrees make order not
matter. Before either, the code is put in one canonical form (``_Canonical``): a lambda is a
function of its own, a walrus an assignment before its statement, ``return a if c else b``
an ``if`` and two returns, so an answer rewritten as one expression is the code it rewrites.
Then a copier's edits are undone (``_rewritten``, ``_Order``; redteam8): a helper of the answer
that computes from its arguments alone is written out where it is called (so a part pulled out
into a function and a function written out at each call meet), ``x += y`` is ``x = x + y``
and a tuple update ``a, b = a + c, b + d`` two assignments, a value named only on its way into
the next statement is written out there, a function's leading argument checks (calls of the
module's functions on its parameters, ``check_float("x", x, 0.0)``) are dropped, arguments by
keyword are arguments by position, ``a > b`` is ``b < a``, a ``+``/``*`` chain is flattened with
its constants last, and the operands of ``and``/``or``, ``==``/``!=`` and ``min``/``max`` are
in one order by kind. Each was narrowed where it made an honest answer the solution (a
formula's named steps stay, arithmetic operands of one kind keep their order, a closure stays).

Beside the subtrees, which one changed token (``// 2`` as ``>> 1``) costs the digest of every
subtree above it, the normalised code is also compared as a *token stream* (``in_order``:
difflib's ratio of the two streams, 0 to 1, as MOSS and JPlag compare token sequences): an
answer unit whose tokens are a piece's tokens in the same order but for a few edits scores
≥ ``ORDER`` and is flagged on that alone, or ≥ ``ORDER_WITH`` when its subtrees also score ≥
``SHAPE_WITH``.

An answer is compared with the lab's references of its exercise (``labgrader.references``:
each function, class or module, by its source) and the instructors' solution cell, and with
the same cell of every other submission of the class; a score ≥ ``THRESHOLD`` on an answer
of at least ``MIN_WEIGHT`` is flagged for review (the score stays what the checks gave).
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import functools
import difflib
import hashlib
import io
import json
import os
import time
import tokenize
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

THRESHOLD = 0.8     # Dice score from which an answer goes to review
MIN_NODES = 4       # smaller subtrees (a name, a constant) say nothing
MIN_WEIGHT = 60     # smaller answers and pieces (summed subtree sizes) are never compared: an honest
#                     answer to a smaller exercise is its reference (redteam8 honest_grow, 47)
PAIR_WEIGHT = 80    # two classmates' answers are scored by containment from this weight each
ORDER = 0.9         # token streams this alike: a copy with a few tokens edited (honest: <= 0.80)
ORDER_WITH, SHAPE_WITH = 0.8, 0.7  # both this alike: a copy rewritten in part (honest: 0.80, 0.37)
MAX_TOKENS = 2500   # a unit longer is not compared as a token stream (the lab's longest: 1754)
MAX_UNITS = 40      # definitions of one answer compared on their own, the outermost first
REVIEW_S = 60.0     # seconds the copy check spends on one notebook at most (then: look yourself)
MAX_SOURCE = 100_000  # characters of one answer that are parsed at most
BUILTINS = frozenset(dir(builtins))


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


def _normalised(source: str) -> ast.Module:
    """``source``'s tree, canonical (``_Canonical``) and normalised (``_Normalise``); raises
    what ``ast.parse`` and a too deep walk raise."""
    tree = _rewritten(_Canonical().visit(ast.parse(source)))
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


STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers")


def _shape(node: ast.AST, memo: dict) -> tuple[str, int]:
    """(a digest of ``node`` without its statement bodies, its number of nodes); ``memo``
    (id of a node -> its shape) makes a tree's shapes one walk, not one per node."""
    got = memo.get(id(node))
    if got is not None:
        return got
    fields, size = [], 1
    for name, value in ast.iter_fields(node):
        if (name in STATEMENT_LISTS and isinstance(value, list)) or \
                name in ("ctx", "type_comment", "kind"):
            continue  # a body's statements count on their own (an IfExp's body does not)
        items = value if isinstance(value, list) else [value]
        parts = []
        for item in items:
            if isinstance(item, ast.AST):
                digest, n = _shape(item, memo)
                parts.append(digest)
                size += n
            else:
                parts.append(repr(item))
        fields.append(f"{name}=[{','.join(parts)}]")
    text = f"{type(node).__name__}({';'.join(fields)})"
    memo[id(node)] = got = hashlib.blake2b(text.encode(), digest_size=8).hexdigest(), size
    return got


def read(source: str) -> Counter | None:
    """The weighted multiset of ``source``'s normalised subtrees (digest -> summed size), or
    None when it cannot be read whole: longer than ``MAX_SOURCE``, not Python, or nested too
    deep to walk (a copy cannot hide behind a line the check gives up on)."""
    if len(source) > MAX_SOURCE:
        return None
    try:
        nodes = list(ast.walk(_normalised(source)))
        out: Counter = Counter()
        memo: dict = {}
        for node in nodes:
            if not isinstance(node, (ast.Module, ast.expr_context)):
                digest, size = _shape(node, memo)
                if size >= MIN_NODES:
                    out[digest] += size
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return out


def fingerprint(source: str) -> Counter:
    """``read`` of ``source``'s first ``MAX_SOURCE`` characters (empty when unreadable)."""
    return read(source[:MAX_SOURCE]) or Counter()


def weight(fp: Counter) -> int:
    return sum(fp.values())


def score(a: Counter, b: Counter) -> float:
    """Dice coefficient of two weighted multisets, 0 (nothing shared) to 1 (the same)."""
    total = weight(a) + weight(b)
    return 2 * weight(a & b) / total if total else 0.0


DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LAYOUT = {tokenize.INDENT: "{", tokenize.DEDENT: "}"}
_UNSEEN = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER}


def _defs_sorted(tree: ast.Module) -> ast.Module:
    """The functions and classes of each module and class body after its other statements,
    in the order of their code: the order of definitions is no part of a token stream."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef)):
            defs = [s for s in node.body if isinstance(s, DEFS)]
            node.body = [s for s in node.body if not isinstance(s, DEFS)] + \
                sorted(defs, key=ast.unparse)
    return tree


def tokens(source: str) -> tuple[str, ...]:
    """``source``'s code in the form ``read`` compares (canonical, names as ``_``, constants
    as their type, definitions sorted), printed back and split into tokens, blocks as ``{``
    ``}``; empty when it cannot be read or has more than ``MAX_TOKENS``."""
    if len(source) > MAX_SOURCE:
        return ()
    try:
        text = ast.unparse(_defs_sorted(_normalised(source)))
        out = tuple(_LAYOUT.get(t.type, t.string) for t in
                    tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in _UNSEEN)
    except (SyntaxError, ValueError, RecursionError, MemoryError, tokenize.TokenError):
        return ()
    return out if len(out) <= MAX_TOKENS else ()


def in_order(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    """How alike two token streams are in order: difflib's ratio, 2·matched / (|a|+|b|), 0
    to 1 (1: the same tokens in the same order); 0 where their lengths or their tokens as
    multisets alone keep it under ``ORDER_WITH``."""
    if not a or not b or 2 * min(len(a), len(b)) < ORDER_WITH * (len(a) + len(b)):
        return 0.0
    if a == b:
        return 1.0
    m = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return m.ratio() if m.quick_ratio() >= ORDER_WITH else 0.0


@dataclass(frozen=True)
class Match:
    score: float
    what: str  # what it matched: a reference's dotted path, the solution, a student
    how: str = "similar"  # "similar": Dice; "holds": the share of ``what`` the answer holds;
    #                       "held": the share of the answer that ``what`` holds (a classmate);
    #                       "order": the token streams' ``in_order``


def definitions(source: str) -> list[str]:
    """``source`` and the source of each function and class defined in it, at any depth, the
    outermost first, ``MAX_UNITS`` and twice the source's length at most (a copy beside code
    of the student's own is still a copy; one past that is still held by the whole answer)."""
    try:
        tree = ast.parse(source[:MAX_SOURCE])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [source]
    lines = source[:MAX_SOURCE].splitlines(keepends=True)
    out, left = [source], 2 * len(source)  # nested definitions: each holds the next ones
    for node in (n for n in ast.walk(tree) if isinstance(n, DEFS)):
        unit = _segment(lines, node)
        left -= len(unit)
        if left < 0 or len(out) > MAX_UNITS:
            break
        out.append(unit)
    return out


def known(source: str, shelf: Path | None = None) -> tuple[Counter, tuple[str, ...]]:
    """``(fingerprint(source), tokens(source))``, read once per process, and once per
    grading run where ``shelf`` (a folder only the grader writes: ``CACHE``) keeps what
    other jobs read: a classmate's answer is compared in every other submission's job.
    Never change them."""
    if shelf is None:
        return _known(source)
    digest = hashlib.blake2b(source.encode(errors="surrogatepass"), digest_size=16)
    fp, toks = _shelved(Path(shelf) / f"{digest.hexdigest()}.json", lambda: _known(source))
    return Counter(fp), tuple(toks)


def _shelved(path: Path, make):
    """``make()``, kept as JSON at ``path`` (in the grader's ``CACHE`` folder) by the first
    job of a grading run that needs it and read back by the others."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        got = make()
        part = path.with_name(f".{path.name}.{os.getpid()}")
        with contextlib.suppress(OSError, ValueError):
            part.write_text(json.dumps(got))
            os.replace(part, path)
        return got


@functools.lru_cache(maxsize=4096)
def _known(source: str) -> tuple[Counter, tuple[str, ...]]:
    """A fingerprint and a token stream read once per process (references, the release,
    classmates)."""
    return fingerprint(source), tokens(source)


class OutOfTime(Exception):
    """The copy check's time for one notebook (``REVIEW_S``) is spent."""


def best_match(answer: str, others: dict[str, str], given: str = "",
               shelf: Path | None = None, pairs: frozenset = frozenset(),
               compiled: list[str] = (), deadline: float | None = None) -> Match | None:
    """The piece of ``others`` (label -> source) ``answer`` is most like, once what the
    release ``given`` everyone is taken out: by Dice, the answer as a whole or one of its
    definitions against each piece; and by how much of each piece (of at least
    ``MIN_WEIGHT``) the whole answer holds, so that code added around a copy, inside it or
    between its parts (a copy cut in two) does not hide it. For the pieces labelled in
    ``pairs`` (classmates' answers: either of two may be the copy) also by how much of the
    answer the piece holds, each side at least ``PAIR_WEIGHT``: the one who copied a core
    and left the rest out is named as well as the one copied. None when nothing is big
    enough to judge. ``compiled``: sources the answer's code compiled while graded (strings
    it ran with ``exec``, ``timeit``…): each is a unit too, and part of the whole answer.
    Each unit's token stream is also compared with the token stream of each piece that its
    syntax does not flag already (``in_order``): "order" where it reaches ``ORDER``, or
    ``ORDER_WITH`` beside a subtree score of ``SHAPE_WITH``. ``OutOfTime`` past
    ``deadline`` (``time.monotonic``)."""
    def in_time() -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise OutOfTime
    stub = known(given)[0]
    theirs = {}
    for label, source in others.items():
        in_time()
        theirs[label] = known(source, shelf)
    defs = definitions(answer)
    units = defs + list(compiled)
    pieces = []
    for unit in units:
        in_time()
        pieces.append(fingerprint(unit) - stub)
    whole = sum(pieces[len(defs):], pieces[0])  # the cell and what it compiled
    judged = [k for k, mine in enumerate(pieces) if weight(mine) >= MIN_WEIGHT]
    streams: dict[int, tuple] = {}  # unit -> its tokens, read when first needed
    found = []
    for label, (fp, stream) in theirs.items():
        in_time()
        fp = fp - stub
        floor = PAIR_WEIGHT if label in pairs else MIN_WEIGHT
        mine = [Match(round(score(m, fp), 2), label) for m in [whole, *pieces[1:]]
                if weight(m) >= MIN_WEIGHT]
        if weight(fp) >= floor and (label not in pairs or weight(whole) >= floor):
            mine.append(Match(round(weight(whole & fp) / weight(fp), 2), label, "holds"))
        if label in pairs and min(weight(whole), weight(fp)) >= floor:
            mine.append(Match(round(weight(whole & fp) / weight(whole), 2), label, "held"))
        shape = max((m.score for m in mine), default=0.0)
        order = 0.0
        if shape < THRESHOLD and weight(fp) >= floor:  # not flagged by its syntax already
            for k in judged:
                if k not in streams:
                    in_time()
                    streams[k] = tokens(units[k])
            for k in judged:
                in_time()
                order = max(order, in_order(streams[k], stream))
        if order >= ORDER or (order >= ORDER_WITH and shape >= SHAPE_WITH):
            mine.append(Match(round(order, 2), label, "order"))
        found += mine
    return max(found, key=lambda m: (m.score, m.how == "similar"), default=None)


def contained(mine: Counter, reference: str) -> float:
    """The share of ``reference``'s normalised syntax that the fingerprint ``mine`` holds, 0
    to 1 (code added around a copy, or inside it, does not lower it); 0 for a reference too
    small to judge."""
    ref = known(reference)[0]
    if weight(ref) < MIN_WEIGHT:
        return 0.0
    return weight(mine & ref) / weight(ref)


def copied(mine: Counter, references: dict[str, str]) -> Match | None:
    """The reference (label -> source) that ``mine`` — the fingerprint of code a student's
    process compiled while graded (``codewatch``), or of all it compiled — holds a copy of:
    ≥ ``THRESHOLD`` of the reference's normalised syntax (``contained``: padding does not
    hide a copy); None when none is held."""
    found = [Match(round(contained(mine, ref), 2), label) for label, ref in references.items()]
    best = max(found, key=lambda m: m.score, default=None)
    return best if best is not None and best.score >= THRESHOLD else None


# ---- what an answer is compared with ------------------------------------------------------

def _segment(lines: list[str], node: ast.AST) -> str:
    """``node``'s source: its whole lines, dedented (``ast.get_source_segment`` splits the
    file again at every call)."""
    import textwrap
    return textwrap.dedent("".join(lines[node.lineno - 1:node.end_lineno]))


def _units(path: Path, names: list[str]) -> dict[str, str]:
    """Sources in ``path``: the definition named by ``names`` (a function, a class, a
    method), or each top-level definition when ``names`` is empty."""
    try:
        text = path.read_text()
        tree = ast.parse(text)
    except (OSError, SyntaxError):
        return {}
    lines = text.splitlines(keepends=True)
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    if not names:
        return {n.name: _segment(lines, n) for n in tree.body if isinstance(n, defs)}
    scope = tree.body
    node = None
    for name in names:
        node = next((n for n in scope if isinstance(n, defs) and n.name == name), None)
        if node is None:
            return {}
        scope = node.body
    return {".".join(names): _segment(lines, node)}


@functools.lru_cache(maxsize=None)
def reference_sources(exercise: str) -> dict[str, str]:
    """The lab's references of ``exercise`` by their source: dotted path -> code (read once
    per process: the package is sealed while grading; callers never change the dict)."""
    from labsupport.exercises.registry import EXERCISES
    from . import references
    root = references.ROOT.parent
    out: dict[str, str] = {}
    entry = EXERCISES.get(exercise)
    for ref in entry.references if entry else ():
        module = references._module_of(ref)
        rel = Path(*module.split("."))
        path = root / rel.with_suffix(".py")
        if not path.exists():
            path = root / rel / "__init__.py"
        names = ref[len(module) + 1:].split(".") if ref != module else []
        for name, source in _units(path, names).items():
            out[f"{module}.{name}"] = source
    return out


def copy_reviews(answers: dict[str, str], references: dict[str, dict[str, str]],
                 classmates: dict[str, dict[str, str]], given: dict[str, str],
                 shelf: Path | None = None,
                 compiled: dict[str, list[str]] | None = None,
                 budget_s: float = REVIEW_S) -> dict[str, str]:
    """exercise id -> why a trainer should look, for each answer (id -> source) that scores
    ≥ ``THRESHOLD`` against its ``references`` (id -> label -> source: the lab's code, the
    solution) or a classmate's answer (student -> id -> source); ``given`` is the release's
    cell of each id. What is not compared within ``budget_s`` seconds is flagged as such (an
    answer built to make the comparison slow costs its own notebook that much at most)."""
    out = {}
    deadline = time.monotonic() + budget_s
    for ex, source in answers.items():
        mates = {f"student {who}'s answer": cells[ex] for who, cells in classmates.items()
                 if ex in cells}
        try:
            if time.monotonic() > deadline:
                raise OutOfTime
            if read(source) is None:
                out[ex] = "too long or too deeply nested for the copy check to read"
                continue
            match = best_match(source, {**references.get(ex, {}), **mates}, given.get(ex, ""),
                               shelf, frozenset(mates), (compiled or {}).get(ex, []), deadline)
        except OutOfTime:
            out[ex] = (f"the copy check ran out of time ({budget_s:g} s for the notebook) before "
                       "it compared this answer with everything: look at it yourself")
            continue
        if match is not None and match.score >= THRESHOLD:
            how = match.how if match.how == "similar" or match.what not in mates else \
                f"{match.how} pair"
            out[ex] = REASONS[how].format(score=match.score, what=match.what)
    return out


SAME = "the same code up to names, order and checks"
IN_ORDER = "the same tokens in the same order but for a few, up to names"
REASONS = {  # Match.how (" pair": against a classmate) -> the review's words
    "similar": "similar to {what} (score {score:.2f}: " + SAME + ")",
    "holds": "holds {score:.0%} of {what} (" + SAME + ", with code of its own around or inside it)",
    "holds pair": "{score:.0%} of {what} is in it (" + SAME + ": either may be the copy)",
    "held pair": "{score:.0%} of it is in {what} (" + SAME + ": either may be the copy)",
    "order": "similar to {what} (score {score:.2f}: " + IN_ORDER + ")",
    "order pair": "similar to {what} (score {score:.2f}: " + IN_ORDER + ": either may be the copy)"}


# ---- in the autograde pipeline ------------------------------------------------------------

SOLUTION_MARKS = ("### BEGIN SOLUTION", "### END SOLUTION")
MAX_NOTEBOOK = 100 << 20  # bytes of a notebook the copy check reads at most (a bigger one is
#                          flagged in its own job: it cannot hide from the class by size)


def _code_cells(path: Path, ids, shelf: Path | None = None) -> dict[str, str] | None:
    """grade_id -> the cell's Python, for the ids that appear exactly once in the notebook at
    ``path`` (read as plain JSON: a submission is data here, never run); None when it cannot
    be read (over ``MAX_NOTEBOOK``, not a notebook, nested too deep: whatever it holds, a
    classmate's file never stops another student's grading). With ``shelf`` (``CACHE``),
    read once per grading run: every job of the class reads every classmate."""
    try:
        if path.stat().st_size > MAX_NOTEBOOK:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if shelf is None:
        return _cells_of(data, ids)
    digest = hashlib.blake2b(data, digest_size=16)
    digest.update("\0".join(sorted(map(str, ids))).encode(errors="surrogatepass"))
    return _shelved(Path(shelf) / f"cells-{digest.hexdigest()}.json", lambda: _cells_of(data, ids))


def _cells_of(data: bytes, ids) -> dict[str, str] | None:
    """``_code_cells`` of a notebook's bytes."""
    from .cellcode import python_source
    try:
        cells = json.loads(data).get("cells", [])
        found: dict[str, list[str]] = {}
        for c in cells if isinstance(cells, list) else []:
            meta = c.get("metadata") if isinstance(c, dict) else None
            meta = meta.get("nbgrader") if isinstance(meta, dict) else None
            gid = meta.get("grade_id") if isinstance(meta, dict) else None
            if isinstance(gid, str) and gid in ids and c.get("cell_type") == "code":
                src = c.get("source", "")
                src = "".join(map(str, src)) if isinstance(src, list) else str(src)
                src = "\n".join(l for l in src.splitlines() if l.strip() not in SOLUTION_MARKS)
                found.setdefault(gid, []).append(python_source(src))
    except Exception:  # noqa: BLE001 - OSError, RecursionError, MemoryError…: see above
        return None
    return {g: s[0] for g, s in found.items() if len(s) == 1}


CLASS = "Classmates.folder"  # config: the class's submitted/ when grading runs elsewhere
CACHE = "Classmates.cache"  # config: a folder of the grader's where jobs share fingerprints


def class_reviews(config, info: dict, answers: dict[str, str],
                  compiled: dict[str, list[str]] | None = None) -> dict[str, str]:
    """test id -> why a trainer should look, for the answers (answer id -> Python) of one
    submission (``info``: nbgrader's student, assignment, notebook): against the lab's
    references and the instructors' solution (``source_directory``), and the same cells of
    every other submission (``<submitted>/<student>/<assignment>/``: the course's, or the
    folder ``CLASS`` names, as ``parallel`` does for its private courses); the release's
    cells are what everyone was given."""
    from nbgrader.coursedir import CourseDirectory
    cd = CourseDirectory(config=config)
    student, assignment = info.get("student", ""), info.get("assignment", "")
    name = f"{info.get('notebook', '')}.ipynb"
    ids = set(answers)
    folder = lambda where, who=".": Path(cd.format_path(where, who, assignment)) / name  # noqa: E731
    section, key = CLASS.split(".")
    shelf = config.get(section, {}).get(CACHE.split(".")[1]) or None
    shelf = Path(shelf) if shelf else None
    given = _code_cells(folder(cd.release_directory), ids, shelf) or {}
    solution = _code_cells(folder(cd.source_directory), ids, shelf) or {}
    refs = {ex: {**{f"the lab's {r}": s for r, s in reference_sources(ex).items()},
                 **({"the instructors' solution": solution[ex]} if ex in solution else {})}
            for ex in ids}
    base = Path(config.get(section, {}).get(key) or Path(cd.root) / cd.submitted_directory)
    found = {who: _code_cells(base / who / assignment / name, ids, shelf)
             for who in sorted(p.name for p in base.iterdir() if p.is_dir())} \
        if base.is_dir() else {}
    # unreadable: no classmate to the others, and flagged in its own job
    classmates = {who: cells or {} for who, cells in found.items() if who != student}
    if found.get(student, {}) is None and (base / student / assignment / name).exists():
        return {f"{ex}_test": "the notebook cannot be compared with the class (over "
                f"{MAX_NOTEBOOK >> 20} MB, or not a notebook the copy check can read): look "
                "at it yourself" for ex in ids}
    why = copy_reviews(answers, refs, classmates, given, shelf, compiled)
    return {f"{ex}_test": reason for ex, reason in why.items()}
