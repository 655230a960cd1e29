"""The package's shape: dependencies point one way, along the layers of docs/architecture.md's
picture (the one list, read here), with no import circles, imports inside functions
included; inside ``serving/`` its parts are ordered too (net ← api ← ops ← demo)."""
import ast
import re
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "labsupport"
DOC = PKG.parent / "docs" / "architecture.md"


def _picture() -> list[tuple[str, list[str], str]]:
    """docs/architecture.md's layer picture (the first code block), top line first: per line
    the layer, its top-level modules and packages (``name`` or ``name/``), the rest."""
    block = DOC.read_text().split("```\n", 2)[1]
    out = []
    for line in block.splitlines():
        layer, names, *rest = re.split(r" {2,}", line.strip(), maxsplit=2)
        out.append((layer, names.split(" "), rest[0] if rest else ""))
    return out


# The one list of layers, bottom first, read from the doc: a module may import its own layer
# or any below. The package's ``__init__`` sits with the top layer (grading imports the
# package to find it).
LAYERS = [{n.rstrip("/") for n in names} for _, names, _ in reversed(_picture())]
LAYERS[-1].add("__init__")
# serving's parts in order (the serving line's "net ← api/ ← ops/ ← demo/")
SERVING = [part.split()[0].rstrip("/") for part in
           next(rest for _, names, rest in _picture() if names == ["serving/"]).split(" ← ")]


def _name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every labsupport module ``path`` imports, at any depth (functions included)."""
    mod = _name(path)
    pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[:len(pkg.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("labsupport"):
                continue
            for alias in node.names:  # `from . import x` may name a submodule
                sub = f"{target}.{alias.name}"
                out.add(sub if _exists(sub) else target)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("labsupport")}
    out.discard(mod)
    return out


def _exists(mod: str) -> bool:
    p = PKG.parent.joinpath(*mod.split("."))
    return p.with_suffix(".py").exists() or (p / "__init__.py").exists()


GRAPH = {_name(p): _imports(p) for p in PKG.rglob("*.py")}


def _layer(mod: str) -> int:
    top = mod.split(".")[1] if "." in mod else "__init__"
    for k, names in enumerate(LAYERS):
        if top.removesuffix(".py") in names:
            return k
    raise AssertionError(f"{mod}: no layer for {top!r}; add it to LAYERS")


def test_every_module_has_a_layer():
    for mod in GRAPH:
        _layer(mod)
    named = [n for layer in LAYERS for n in layer]
    assert len(named) == len(set(named)), f"a module in two layers: {sorted(named)}"
    assert [layer for layer, _, _ in _picture()] == [
        "course", "notebook", "serving", "models", "sim", "batching", "world", "leaves"]
    for name in set(named) - {"__init__"}:  # each name in the picture is in labsupport
        assert _exists(f"labsupport.{name}"), f"the layer picture names {name!r}: no such module"


def test_function_level_imports_are_in_the_graph():
    """The graph holds imports inside functions too (serve's ``replicas``, the peers
    bench's ``launcher``), so they point down like any other."""
    assert "labsupport.serving.ops.replicas" in GRAPH["labsupport.serving.ops.serve"]
    assert "labsupport.serving.ops.launcher" in GRAPH["labsupport.benches.peers.targets"]


def _part(mod: str) -> int | None:
    parts = mod.split(".")
    if len(parts) < 3 or parts[1] != "serving":
        return None
    return SERVING.index(parts[2])


@pytest.mark.parametrize("mod", sorted(m for m in GRAPH if _part(m) is not None))
def test_serving_parts_import_only_themselves_and_the_parts_before(mod):
    assert SERVING == ["net", "api", "ops", "demo"]
    up = [i for i in GRAPH[mod] if i in GRAPH and (_part(i) or 0) > _part(mod)]
    assert not up, f"{mod} ({SERVING[_part(mod)]}) imports a later part of serving: {up}"


@pytest.mark.parametrize("mod", sorted(GRAPH))
def test_imports_point_down(mod):
    up = [i for i in GRAPH[mod] if i in GRAPH and _layer(i) > _layer(mod)]
    assert not up, f"{mod} (layer {_layer(mod)}) imports a higher layer: {up}"


def test_no_import_circles():
    graph = {m: {i for i in deps if i in GRAPH and not i == "labsupport"}
             for m, deps in GRAPH.items() if m != "labsupport"}
    state: dict[str, int] = {}

    def visit(m, path):
        state[m] = 1
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                cycle = path[path.index(d):] + [d]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if d not in state:
                visit(d, path + [d])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])


def test_top_level_stays_small():
    top = [p.name for p in PKG.glob("*.py")]
    assert len(top) <= 13, f"{len(top)} modules at the top of labsupport/: {sorted(top)}"

