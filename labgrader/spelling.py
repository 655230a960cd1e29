"""One way to reach an object's state, for the copy review (the first step of
``canonical.normalised``): the ways Python spells reading or writing an attribute or an item,
undone, so that a copy whose state is spelled another way is the code it copies.

``spelled_one_way(tree)``, in order:

1. **Constants** (``_Constants``): a name bound once, at module or class level, to a constant
   expression (``REFS = 'refs'``, ``A, B = range(2)``, ``K = 'r' + 'efs'``) is its value where
   it is read (``self.s[REFS]``; a class's, as ``Cls.K`` or as a key, ``self.s[self.K]``),
   and any expression of constants is its value
   (``f'refs'``, ``'re' + 'fs'``, ``-1``). Its binding goes.
2. **Accessors** (``_Accessors``): the language's reflective spellings, as the plain one:
   ``getattr(x, 'k'[, d])``, ``setattr``, ``delattr``, ``vars(x)['k']``, ``vars(x).get('k')``,
   ``x.__dict__[...]``, ``x.__getattribute__('k')``, ``object.__getattribute__(x, 'k')``,
   ``x.__setattr__('k', v)``, ``object.__setattr__(x, 'k', v)`` and ``attrgetter('k')(x)`` are
   the attribute; ``itemgetter(k)(x)``, ``operator.getitem(x, k)``, ``setitem``, ``delitem``,
   ``x.__getitem__(k)`` and ``x.__setitem__(k, v)`` the item.
3. **Namespaces** (``_Namespaces``): a dict or a list of slots an object keeps in place of
   attributes (``self.s['refs']``, ``self.s[2]``) as the object's attributes.
4. **Holders** (``_Holders``): an object kept only to hold attributes (``self.t.refs``,
   ``_S[id(self)].refs``, ``self._st().refs``) as its owner's.

Steps 2–4 repeat until none finds more (a dict in a holder in a dict…), at most four rounds.
A key is an attribute name (``_key``): ``'refs'``, ``'free blocks'`` as ``free_blocks``,
``2`` as ``_2``. The red teams behind each: redteam13–19 (``tests/grading/hostile``).
"""
from __future__ import annotations

import ast
import operator
import re
from collections import Counter

MAX_ROUNDS = 4     # accessor/namespace/holder rounds: a namespace in a holder in a namespace…
MAX_CONSTANT = 1000  # longest str/bytes a folded constant may be (a fold cannot blow up a tree)
MAX_BITS = 256      # widest int a folded product may be (squaring by names doubles it each time)
HOLDER_NODES = 24   # largest expression taken for a holder (``_S[id(self)]`` has 7 nodes)
_FOLD = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
         ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


def spelled_one_way(tree: ast.Module) -> ast.Module:
    """``tree`` with its state reached one way (the module's docstring)."""
    tree = _Constants(tree).fold(tree)
    for _ in range(MAX_ROUNDS):
        tree = _Namespaces(_Accessors().visit(tree)).visit_tree()
        holders = _Holders(tree)
        if not holders.holders:
            break
        tree = holders.visit(tree)
    return tree


def _key(node) -> str | None:
    """The attribute name a constant key spells, else None: ``'refs'`` itself, ``'free
    blocks'`` (or ``b'free blocks'``) as ``free_blocks``, ``2`` as ``_2``, ``2.5`` as ``_2_5``."""
    if not isinstance(node, ast.Constant) or isinstance(node.value, bool):
        return None
    value = node.value
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if isinstance(value, (int, float)):
        value = "_" + str(value).replace("-", "m").replace(".", "_")
    if not isinstance(value, str):
        return None
    if value.isidentifier():
        return value
    name = _NOT_A_NAME.sub("_", value).strip("_")
    return next((n for n in (name, f"_{name}") if n.isidentifier()), None)


_NOT_A_NAME = re.compile(r"\W+")


def _attribute(obj: ast.expr, name: str, ctx, like: ast.AST) -> ast.Attribute:
    return ast.copy_location(ast.Attribute(value=obj, attr=name, ctx=ctx), like)


def _item(obj: ast.expr, key: ast.expr, ctx, like: ast.AST) -> ast.Subscript:
    return ast.copy_location(ast.Subscript(value=obj, slice=key, ctx=ctx), like)


def _name_of(node) -> str | None:
    """``f`` for ``f`` and for ``mod.f`` (``operator.getitem``, ``getitem``)."""
    return node.id if isinstance(node, ast.Name) else \
        node.attr if isinstance(node, ast.Attribute) else None


def _folded(node, names: dict) -> ast.Constant | None:
    """``node``'s value when it is an expression of constants and of ``names``, else None."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, (bool, type(None))) and \
            isinstance(node.value, (str, bytes, int, float)):
        return node
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        return names.get(node.id)
    if isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values):
        return ast.Constant(value="".join(v.value for v in node.values))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _folded(node.operand, names)
        if v is not None and isinstance(v.value, (int, float)):
            return ast.Constant(value=-v.value if isinstance(node.op, ast.USub) else v.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLD:
        a, b = _folded(node.left, names), _folded(node.right, names)
        if a is None or b is None:
            return None
        if isinstance(a.value, (str, bytes)) or isinstance(b.value, (str, bytes)):
            if not isinstance(node.op, ast.Add) or type(a.value) is not type(b.value) or \
                    len(a.value) + len(b.value) > MAX_CONSTANT:
                return None
        elif isinstance(node.op, (ast.FloorDiv, ast.Mod)) and b.value == 0:
            return None
        elif isinstance(node.op, ast.Mult) and isinstance(a.value, int) and \
                isinstance(b.value, int) and \
                a.value.bit_length() + b.value.bit_length() > MAX_BITS:  # B = A * A, C = B * B…
            return None
        try:
            return ast.Constant(value=_FOLD[type(node.op)](a.value, b.value))
        except (ArithmeticError, ValueError, TypeError):  # 0x<400 f's> * 1.0 (redteam18)
            return None
    return None


class _Constants:
    """Step 1: names bound once to constants, and expressions of constants, as their value."""

    def __init__(self, tree: ast.Module):
        nodes = list(ast.walk(tree))
        stores = Counter(n.id for n in nodes if isinstance(n, ast.Name)
                         and not isinstance(n.ctx, ast.Load))
        stored_attrs = {n.attr for n in nodes if isinstance(n, ast.Attribute)
                        and not isinstance(n.ctx, ast.Load)}
        classes = [c for c in nodes if isinstance(c, ast.ClassDef)]
        bodies = [tree.body] + [c.body for c in classes]
        self.names: dict[str, ast.Constant] = {}
        self.attrs: dict[str, ast.Constant] = {}  # class constants: Cls.K, x[self.K]
        self.classes = {c.name for c in classes}
        self.gone: set[int] = set()              # the bindings folded away (their ids)
        for _ in range(3):                        # a constant of constants
            found = len(self.gone)
            for body in bodies:
                for s in body:
                    pairs = self._pairs(s)
                    if pairs and all(stores[n] == 1 for n, _ in pairs):
                        values = [(n, _folded(v, self.names)) for n, v in pairs]
                        if all(v is not None for _, v in values):
                            self.names.update(values)
                            self.gone.add(id(s))
                            if body is not tree.body:
                                self.attrs.update((n, v) for n, v in values if n not in stored_attrs)
            if len(self.gone) == found:
                break

    @staticmethod
    def _pairs(s) -> list[tuple[str, ast.expr]]:
        """The (name, value) pairs ``s`` binds: ``K = v``, ``A, B = (x, y)`` or ``= range(n)``."""
        if not isinstance(s, ast.Assign) or len(s.targets) != 1:
            return []
        t, v = s.targets[0], s.value
        if isinstance(t, ast.Name):
            return [(t.id, v)]
        if not isinstance(t, (ast.Tuple, ast.List)) or not all(isinstance(e, ast.Name) for e in t.elts):
            return []
        if isinstance(v, (ast.Tuple, ast.List)) and len(v.elts) == len(t.elts):
            return [(e.id, x) for e, x in zip(t.elts, v.elts)]
        if isinstance(v, ast.Call) and _name_of(v.func) == "range" and len(v.args) == 1 and \
                isinstance(v.args[0], ast.Constant) and v.args[0].value == len(t.elts):
            return [(e.id, ast.Constant(value=i)) for i, e in enumerate(t.elts)]
        return []

    def fold(self, tree: ast.Module) -> ast.Module:
        """``tree`` with the constants written as their values and their bindings gone: one
        walk, bottom up and without recursion (a deep expression is no deeper to fold)."""
        for node in _bottom_up(tree):
            for field, value in ast.iter_fields(node):
                if isinstance(value, list):
                    new = [self._value(v, node) for v in value
                           if not (isinstance(v, ast.Assign) and id(v) in self.gone)]
                    setattr(node, field, new)
                elif isinstance(value, ast.AST):
                    setattr(node, field, self._value(value, node))
        return tree

    def _value(self, node, parent):
        """``node``, or the constant it is (its operands are folded already)."""
        value = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            value = self.names.get(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and \
                isinstance(node.value, ast.Name) and (node.value.id in self.classes or (
                    isinstance(parent, ast.Subscript) and parent.slice is node)):
            value = self.attrs.get(node.attr)  # Cls.K, or x[self.K]: a class's constant
            #                                    (self.name elsewhere may be a subclass's own)
        elif isinstance(node, ast.JoinedStr) or (  # operands folded already: one level down
                isinstance(node, ast.BinOp) and isinstance(node.left, ast.Constant)
                and isinstance(node.right, ast.Constant)) or (
                isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)):
            value = _folded(node, {})  # never a walk of what did not fold (redteam19: D²)
        return ast.copy_location(ast.Constant(value=value.value), node) if value else node


class _Accessors(ast.NodeTransformer):
    """Step 2: a reflective spelling of an attribute or an item, as the plain one."""

    def visit_Subscript(self, node):
        self.generic_visit(node)
        key, base = _key(node.slice), _attributes_of(node.value)
        return _attribute(base, key, node.ctx, node) if key and base is not None else node

    def visit_Call(self, node):
        self.generic_visit(node)
        f, args = node.func, node.args
        if node.keywords or any(isinstance(a, ast.Starred) for a in args):
            return node
        name = _name_of(f)
        if isinstance(f, ast.Call) and len(args) == 1 and not f.keywords and len(f.args) == 1:
            getter, key = _name_of(f.func), f.args[0]   # attrgetter('a.b')(x), itemgetter(k)(x)
            if getter == "attrgetter" and isinstance(key, ast.Constant) and \
                    isinstance(key.value, str) and all(p.isidentifier() for p in key.value.split(".")):
                out = args[0]
                for part in key.value.split("."):
                    out = _attribute(out, part, ast.Load(), node)
                return out
            if getter == "itemgetter":
                return _item(args[0], key, ast.Load(), node)
        if name == "getattr" and len(args) in (2, 3) and _key(args[1]):
            return _attribute(args[0], _key(args[1]), ast.Load(), node)
        if name == "__getattribute__" and isinstance(f, ast.Attribute):
            if _name_of(f.value) == "object" and len(args) == 2 and _key(args[1]):
                return _attribute(args[0], _key(args[1]), ast.Load(), node)
            if len(args) == 1 and _key(args[0]):
                return _attribute(f.value, _key(args[0]), ast.Load(), node)
        if name == "get" and isinstance(f, ast.Attribute) and len(args) in (1, 2) and \
                _key(args[0]) and _attributes_of(f.value) is not None:
            return _attribute(_attributes_of(f.value), _key(args[0]), ast.Load(), node)
        if name == "getitem" and len(args) == 2:
            return _item(args[0], args[1], ast.Load(), node)
        if name == "__getitem__" and isinstance(f, ast.Attribute) and len(args) == 1:
            return _item(f.value, args[0], ast.Load(), node)
        return node

    def visit_Expr(self, node):
        """A call that writes or deletes, as the statement it spells."""
        self.generic_visit(node)
        v = node.value
        if not isinstance(v, ast.Call) or v.keywords or \
                any(isinstance(a, ast.Starred) for a in v.args):
            return node
        name, args, f = _name_of(v.func), v.args, v.func
        target = None
        if name in ("setattr", "delattr") or (name in ("__setattr__", "__delattr__") and
                                              _name_of(getattr(f, "value", None)) == "object"):
            if len(args) == (3 if "set" in name else 2) and _key(args[1]):
                target, value = _attribute(args[0], _key(args[1]), None, node), args[2:]
        elif name in ("__setattr__", "__delattr__") and isinstance(f, ast.Attribute):
            if len(args) == (2 if "set" in name else 1) and _key(args[0]):
                target, value = _attribute(f.value, _key(args[0]), None, node), args[1:]
        elif name in ("setitem", "delitem") and len(args) == (3 if name == "setitem" else 2):
            target, value = _item(args[0], args[1], None, node), args[2:]
        elif name in ("__setitem__", "__delitem__") and isinstance(f, ast.Attribute) and \
                len(args) == (2 if "set" in name else 1):
            target, value = _item(f.value, args[0], None, node), args[1:]
        if target is None:
            return node
        if value:
            target.ctx = ast.Store()
            return ast.copy_location(ast.Assign(targets=[target], value=value[0]), node)
        target.ctx = ast.Del()
        return ast.copy_location(ast.Delete(targets=[target]), node)


def _attributes_of(node) -> ast.expr | None:
    """``x`` for ``vars(x)`` and ``x.__dict__`` (an object's attributes as a dict), else None."""
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return node.value
    if isinstance(node, ast.Call) and _name_of(node.func) == "vars" and len(node.args) == 1 \
            and not node.keywords:
        return node.args[0]
    return None


class _Namespaces(ast.NodeTransformer):
    """Step 3: a dict an object keeps as a namespace (``self.s``: read by constant keys at
    least twice and never by a computed key, whatever it was bound to: ``{}``, ``dict()``,
    ``defaultdict(…)``; it may be read whole, ``len(self.s)``) or a list of slots (read by
    constant indices, bound and read no other way: a deque read by index and appended to
    stays a deque), as the object's own attributes: ``self.s['refs']`` is ``self.refs``, and
    its binding goes (a display's entries become attributes)."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        uses: dict[tuple, list] = {}
        for n in ast.walk(tree):
            for child in ast.iter_child_nodes(n):
                if isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name):
                    uses.setdefault((child.value.id, child.attr), []).append((n, child))

        def keyed(p, c) -> bool | None:  # a subscript of it: by a constant name or not
            return bool(_key(p.slice)) if isinstance(p, ast.Subscript) and p.value is c else None

        def slots(found) -> bool:  # read by a number: a list of slots, read and bound no other way
            return any(keyed(p, c) and not isinstance(p.slice.value, (str, bytes))
                       for p, c in found) and \
                any(keyed(p, c) is None and not (isinstance(p, ast.Assign) and c in p.targets)
                    for p, c in found)
        self.spaces = {k for k, found in uses.items()
                       if sum(keyed(p, c) is True for p, c in found) >= 2
                       and not any(keyed(p, c) is False for p, c in found) and not slots(found)}

    def visit_tree(self) -> ast.Module:
        return self.visit(self.tree) if self.spaces else self.tree

    def _space(self, node) -> bool:
        return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
            (node.value.id, node.attr) in self.spaces

    def visit_Subscript(self, node):
        self.generic_visit(node)
        key = _key(node.slice)
        return _attribute(node.value.value, key, node.ctx, node) \
            if key and self._space(node.value) else node

    def visit_Assign(self, node):
        mine = [t for t in node.targets if self._space(t)]
        if not mine:
            return self.generic_visit(node)
        value = self.visit(node.value)
        rest = [self.visit(t) for t in node.targets if not self._space(t)]
        out = [ast.copy_location(ast.Assign(targets=rest, value=value), node)] if rest else []
        entries = list(zip(value.keys, value.values)) if isinstance(value, ast.Dict) else \
            [(ast.Constant(value=i), v) for i, v in enumerate(value.elts)] \
            if isinstance(value, (ast.List, ast.Tuple)) else []
        if all(k is not None and _key(k) for k, _ in entries):
            out += [ast.copy_location(ast.Assign(
                targets=[_attribute(mine[0].value, _key(k), ast.Store(), node)], value=v), node)
                for k, v in entries]
        return out

    def visit_AnnAssign(self, node):
        if self._space(node.target):
            if node.value is None:
                return None
            return self.visit_Assign(ast.copy_location(
                ast.Assign(targets=[node.target], value=node.value), node))
        return self.generic_visit(node)


class _Holders(ast.NodeTransformer):
    """Step 4: an object kept only to hold attributes, as its owner's own: ``self.t.refs`` is
    ``self.refs``. A holder is an expression of the instance and global names alone
    (``self.t``, ``_S[id(self)]``, ``self._st()``; no local or parameter in it, so
    ``self.seqs[seq]`` stays a lookup) that is read through at least twice (``self.t.x``,
    never ``self.t.x(…)``) and otherwise only bound (chained, annotated, in a tuple too) to
    anything but a name: a call (``SimpleNamespace()``, ``_State(self)``; its keywords become
    the owner's attributes), a lambda, or the instance itself (``self.t = self``). An object
    the code was given, calls a method of or reads whole stays an object."""

    def __init__(self, tree: ast.Module):
        self.owners = {f.args.args[0].arg for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                       for f in c.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                       and f.args.args}
        self.holders: set[str] = set()
        if not self.owners:  # no method, no instance to hold state for
            return
        parent = {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
        local = _local_names(tree) - self.owners
        kinds = _names_below(tree, self.owners, local)
        through: Counter = Counter()
        spoiled = set()
        for n in parent:
            if not isinstance(n, (ast.Attribute, ast.Subscript, ast.Call)) or \
                    kinds[id(n)] != OWNER or not _small(n):
                continue
            up, key = parent[n], _sig(n)
            if isinstance(up, ast.Attribute) and up.value is n and not (
                    isinstance(parent.get(up), ast.Call) and parent[up].func is up):
                through[key] += 1
            elif not self._bound(n, up, parent):
                spoiled.add(key)
        self.holders = {k for k, count in through.items() if count >= 2 and k not in spoiled}

    def _bound(self, n, up, parent) -> bool:
        """Whether ``n`` is a target its statement binds to something it was not given: an
        assignment's (chained too), an annotated one's, or a tuple target's element."""
        if isinstance(up, ast.Assign) and any(t is n for t in up.targets):
            return self._blank(up.value)
        if isinstance(up, ast.AnnAssign) and up.target is n:
            return up.value is not None and self._blank(up.value)
        stmt = parent.get(up)
        if isinstance(up, ast.Tuple) and isinstance(stmt, ast.Assign) and stmt.targets == [up] \
                and isinstance(stmt.value, ast.Tuple) and len(stmt.value.elts) == len(up.elts):
            return self._blank(stmt.value.elts[[e is n for e in up.elts].index(True)])
        return False

    def _blank(self, value) -> bool:
        """Anything but a name the code was given: a call, a lambda, ``(t := X())``, or the
        instance itself."""
        return not isinstance(value, ast.Name) or value.id in self.owners

    def _owner(self, holder: ast.expr) -> ast.expr:
        if isinstance(holder, ast.Attribute):
            return holder.value
        name = next(x.id for x in ast.walk(holder) if isinstance(x, ast.Name) and x.id in self.owners)
        return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), holder)

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if _small(node.value) and _sig(node.value) in self.holders:
            return _attribute(self._owner(node.value), node.attr, node.ctx, node)
        return node

    def _holder(self, target) -> bool:
        return _small(target) and _sig(target) in self.holders

    def visit_Assign(self, node):
        """A holder's binding goes (its keywords, when it is the only target, become the
        owner's attributes); so does its element of a tuple assignment."""
        mine = [t for t in node.targets if self._holder(t)]
        pair = node.targets[0] if len(node.targets) == 1 else None
        if not mine and isinstance(pair, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                and len(pair.elts) == len(node.value.elts) and any(map(self._holder, pair.elts)):
            kept = [(e, v) for e, v in zip(pair.elts, node.value.elts) if not self._holder(e)]
            pair.elts, node.value.elts = [e for e, _ in kept], [v for _, v in kept]
            return self.generic_visit(node) if kept else None
        if not mine:
            return self.generic_visit(node)
        node.targets = [t for t in node.targets if not self._holder(t)]
        if node.targets:
            return self.generic_visit(node)
        owner = self._owner(mine[0])
        keywords = node.value.keywords if isinstance(node.value, ast.Call) else []
        return [ast.copy_location(ast.Assign(
            targets=[_attribute(owner, k.arg, ast.Store(), node)], value=self.visit(k.value)),
            node) for k in keywords if k.arg is not None]

    def visit_AnnAssign(self, node):
        return None if self._holder(node.target) else self.generic_visit(node)


def _sig(node: ast.AST) -> str:
    """``node``'s code, whether it is read or bound (``ast.dump`` without contexts)."""
    return _CONTEXT.sub("", ast.dump(node))


_CONTEXT = re.compile(r", ctx=(?:Load|Store|Del)\(\)")


def _local_names(tree: ast.Module) -> set[str]:
    """The names a function of ``tree`` binds: its parameters and locals (each outermost
    function walked once: nested ones are in it)."""
    out, todo = set(), [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for x in ast.walk(node):
                if isinstance(x, ast.arg):
                    out.add(x.arg)
                elif isinstance(x, ast.Name) and not isinstance(x.ctx, ast.Load):
                    out.add(x.id)
        else:
            todo.extend(ast.iter_child_nodes(node))
    return out


OWNER, NONE, OTHER = "owner", "none", "other"  # what names a piece of code reads


def _bottom_up(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree``, each after all of its children, found without recursion (a
    deep tree is no deeper to walk)."""
    order, todo = [], [tree]
    while todo:
        node = todo.pop()
        order.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return order[::-1]


def _names_below(tree: ast.Module, owners: set[str], local: set[str]) -> dict[int, str]:
    """For every node (by id): ``OWNER`` when its code names an owner (``self``) and no local,
    ``OTHER`` when it names a local, ``NONE`` when neither; one walk, bottom up."""
    kind: dict[int, str] = {}
    for node in _bottom_up(tree):
        below = {kind[id(c)] for c in ast.iter_child_nodes(node)}
        if isinstance(node, ast.Name):
            below.add(OWNER if node.id in owners else OTHER if node.id in local else NONE)
        kind[id(node)] = OTHER if OTHER in below else OWNER if OWNER in below else NONE
    return kind


def _small(node: ast.AST) -> bool:
    """Whether ``node`` has at most ``HOLDER_NODES`` nodes (a holder is a short expression:
    comparing longer ones would cost the square of a long chain; redteam18)."""
    todo, seen = [node], 0
    while todo:
        seen += 1
        if seen > HOLDER_NODES:
            return False
        todo.extend(ast.iter_child_nodes(todo.pop()))
    return True
