"""Old import paths (0.1.0's flat layout) that keep working after the move to sub-packages.

Students' notebooks and nbgrader's stored test cells import ``labsupport.policies``,
``labsupport.padding`` and friends; this finder answers those names with the module that
now holds the code (the very same module object, so monkeypatching and ``isinstance``
behave). A name mapped to several modules (``padding`` was split in two) gets a small
module that re-exports each of them. ``python -m <old path>`` runs the new module as
``__main__`` (its own package, file and spec). New code imports the new paths.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types

# old module (under labsupport.) -> where its code lives now
MOVED: dict[str, tuple[str, ...]] = {
    "config": ("batching.config",),
    "policies": ("batching.policies", "batching.adaptive"),
    "padding": ("batching.shapes", "batching.plans"),
    "runtime": ("batching.runtime",),
    "lesson": ("batching.lesson",),
    "vclock": ("sim.vclock",),
    "probe": ("sim.scenarios",),
    "corpus": ("encoder.corpus",),
    "service_model": ("costs",),
    "service": ("serving.api.app", "serving.api.service", "serving.api.encoders", "serving.ops.serve"),
    "service_stats": ("serving.api.stats",),
    "loadgen": ("serving.ops.loadgen",),
    "background": ("serving.ops.launcher",),
    "dashboard": ("serving.demo.dashboard",),
    "bridge": ("serving.ops.exporter",),
    "rag": ("serving.demo.rag",),
    "widgets": ("notebook.plots", "notebook.explorer"),
    # 0.2.0's knowledge check was notebook 07; kc08 still answers every check_kc07_NN
    "exercises.kc07": ("exercises.kc08",),
    "exercises.kc07_feedback": ("exercises.kc08_feedback",),
}


def _present(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


class _OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self):
        self._real: dict[str, importlib.machinery.ModuleSpec] = {}

    def find_spec(self, fullname, path=None, target=None):
        head, _, old = fullname.partition(".")
        if head == __package__ and old in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def is_package(self, fullname: str) -> bool:
        return False

    def get_code(self, fullname: str) -> types.CodeType:
        """What runpy executes for ``python -m <old path>``: the new module, run as
        ``__main__`` under its own name, so relative imports and ``__file__`` are right."""
        old = fullname.split(".", 1)[1]
        if len(MOVED[old]) != 1:
            raise ImportError(f"{fullname} was split into {', '.join(MOVED[old])}; "
                              "run one of those with python -m", name=fullname)
        new = f"{__package__}.{MOVED[old][0]}"
        return compile(f"import runpy\nrunpy.run_module({new!r}, run_name='__main__', "
                       "alter_sys=True)\n", f"<{fullname} moved to {new}>", "exec")

    def create_module(self, spec):
        old = spec.name.split(".", 1)[1]
        targets = [f"{__package__}.{t}" for t in MOVED[old]]
        targets = [t for t in targets if t == targets[0] or _present(t)]
        mods = [importlib.import_module(t) for t in targets]
        if len(mods) == 1:
            self._real[spec.name] = mods[0].__spec__  # keep the real module's own spec
            return mods[0]
        view = types.ModuleType(spec.name, f"Re-exports {', '.join(targets)} (moved).")
        for m in reversed(mods):
            view.__dict__.update({k: v for k, v in vars(m).items() if not k.startswith("__")})
        return view

    def exec_module(self, module):
        real = self._real.pop(module.__spec__.name, None)
        if real is not None:
            module.__spec__ = real


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (``import labsupport`` does this)."""
    if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
        sys.meta_path.append(_OldPaths())
