"""The policy registry (issue 35, item 2): one module lists every policy by name, nothing
fills it as a side effect of an import, and it names the same policies as DELAY_MEANING."""
import ast
from pathlib import Path

import pytest

import labsupport
from labsupport.batching.config import DELAY_MEANING
from labsupport.batching.policies import Naive
from labsupport.batching.registry import POLICIES, check_registry

PACKAGE = Path(labsupport.__file__).parent


def test_the_registry_and_the_knobs_name_the_same_policies():
    assert set(POLICIES) == set(DELAY_MEANING)
    assert all(cls.name == name for name, cls in POLICIES.items())
    with pytest.raises(ImportError, match="extra"):
        check_registry({**POLICIES, "extra": Naive})
    short = dict(POLICIES)
    del short["adaptive"]
    with pytest.raises(ImportError, match="adaptive"):
        check_registry(short)


def test_only_the_registry_writes_policies():
    """No module assigns into ``POLICIES`` but ``batching/registry.py`` (no import side
    effects), and no policy module imports the registry (nothing registers itself)."""
    writers = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
            for t in targets:
                base = t.value if isinstance(t, ast.Subscript) else t
                if isinstance(base, ast.Name) and base.id == "POLICIES":
                    writers.append(path.relative_to(PACKAGE).as_posix())
    assert writers == ["batching/registry.py"]
    # the policy modules never reach the registry: it imports them, not they it
    for name in ("policies", "adaptive", "bucketed"):
        tree = ast.parse((PACKAGE / "batching" / f"{name}.py").read_text())
        imported = {f"{n.module or ''}.{a.name}" if isinstance(n, ast.ImportFrom) else a.name
                    for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                    for a in n.names}
        assert not [m for m in imported if "registry" in m.split(".")], name
