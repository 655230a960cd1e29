"""The package's shape: dependencies point one way (leaves ← world ← batching ← sim ←
models ← serving ← notebook ← course), with no import circles, imports inside functions
included."""
import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "labsupport"
LAYERS = [  # bottom first; a module may import its own layer or any below
    {"validate", "paths", "device", "projector", "shellwait"},
    {"traffic", "costs", "metrics", "queueing"},
    {"batching"},
    {"sim"},
    {"encoder", "decoder"},
    {"serving"},
    {"notebook"},
    {"exercises", "benches", "cli", "doctor", "demo_check", "__init__"},
]


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

