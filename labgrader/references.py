"""The lab's own implementation of each exercise: one table, read by the static audit of
answer cells (``labgrader.audit``) and by the runtime tripwire of the trusted pass.

``REFERENCES[ex]`` names, as dotted paths, what solves ``ex`` for the student: a function,
a class, a method, or a whole module (everything in it). ``COMMON`` is a reference of every
exercise (the notebooks' fallbacks hand out the lab's answers). Using a reference in an
answer cell — imported under any name or path, re-exported elsewhere in the package,
wrapped, subclassed, looked up with a computed name — is flagged with its reason; so is
running one while the student's function runs (``tripwire``). The lab's own demo cells
import them freely: only what the student wrote is audited.

From ``labsupport.exercises`` an answer cell may import only the checks (``check_*``, a
self-test) and ``STUDENT_HELPERS``: every other name there belongs to the grader.
"""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import labsupport

PACKAGE = "labsupport"
ROOT = Path(labsupport.__file__).resolve().parent  # labsupport/

BATCHER = ("labsupport.batching.runtime.MicroBatcher", "labsupport.batching.policies",
           "labsupport.batching.bucketed", "labsupport.batching.adaptive")
DECODER_ENGINE = ("labsupport.decoder.scheduler", "labsupport.decoder.engine",
                  "labsupport.decoder.stepsim", "labsupport.decoder.rules")

REFERENCES: dict[str, tuple[str, ...]] = {
    "ex01_1": ("labsupport.metrics.utilisation", "labsupport.metrics.summarize"),
    "ex01_2": ("labsupport.metrics.percentiles", "labsupport.metrics.summarize"),
    "ex01_3": ("labsupport.queueing",),
    "ex02_1": BATCHER, "ex02_2": BATCHER, "ex02_3": BATCHER, "ex02_4": BATCHER,
    "ex02_5": BATCHER, "ex02_6": BATCHER, "ex02_9": BATCHER,
    "ex02_7": ("labsupport.exercises.ex02_knee.reference_sweep",),
    "ex02_8": ("labsupport.metrics.find_knee",),
    "ex03_1": ("labsupport.batching.shapes.pad", "labsupport.batching.shapes.Padded"),
    "ex03_2": ("labsupport.batching.shapes.bucket_of",
               "labsupport.batching.shapes.assign_buckets"),
    "ex03_3": ("labsupport.batching.plans.token_budget_batches",),
    "ex03_4": ("labsupport.batching.plans.waste", "labsupport.batching.plans.batch_padded_tokens",
               "labsupport.metrics.padding_share"),
    "ex04_1": ("labsupport.exercises.ex04._pool_ref", "labsupport.encoder.model"),
    "ex04_2": ("labsupport.costs.ServiceModel.fit", "labsupport.costs.linear_fit"),
    "ex04_3": (),
    "ex04_4": ("labsupport.batching.adaptive",),
    "ex05_4": ("labsupport.decoder.kvmath",),
    "ex05_5": ("labsupport.decoder.tokentimes", "labsupport.decoder.metrics"),
    "ex05_6": ("labsupport.decoder.roofline",),
    "ex06_1": DECODER_ENGINE,
    "ex06_2": DECODER_ENGINE + ("labsupport.decoder.kvcache",),
    "ex06_4": ("labsupport.decoder.rules.grow_or_preempt",),
    "ex06_5": ("labsupport.decoder.rules.admit_waiting",),
    "ex06_6": ("labsupport.exercises.slo_pick",),
    "ex06_7": ("labsupport.exercises.ex06_speedup.speedup_ref",),
    "ex06_8": ("labsupport.decoder.blockpool", "labsupport.decoder.kvcache"),
    "ex06_9": ("labsupport.decoder.ragged",),
    "ex06_10": ("labsupport.decoder.kvcache.cached_prefix",
                "labsupport.decoder.kvcache.block_names"),  # block_hash is given to students
    "ex09_1": ("labsupport.exercises.challenge.SloBuckets", "labsupport.batching.bucketed",
               "labsupport.batching.adaptive"),
}
COMMON = ("labsupport.exercises.fallback",)
STUDENT_HELPERS = frozenset({  # given to students by a notebook's answer cell
    "labsupport.exercises.ex04.p99_bucketed", "labsupport.exercises.ex04.slo_traffic",
    "labsupport.exercises.ex04.corpus_lengths"})


def references(ex: str) -> tuple[str, ...]:
    """Every reference of ``ex`` (its own and ``COMMON``)."""
    return REFERENCES.get(ex, ()) + COMMON


# ---- where a name really lives: re-exports and lazy public names -------------------------

def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top_level(tree: ast.Module):
    """Statements run at import: the module body and the bodies of top-level if/try."""
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            todo[:0] = node.body + node.orelse + getattr(node, "handlers", []) + getattr(
                node, "finalbody", [])
        elif isinstance(node, ast.ExceptHandler):
            todo[:0] = node.body


@lru_cache(maxsize=1)
def _aliases() -> dict[str, str]:
    """``labsupport.x.Name`` -> the dotted path it was imported from, for every top-level
    import of the package (``from ..batching.runtime import MicroBatcher`` in ``fallback``
    makes ``labsupport.exercises.fallback.MicroBatcher`` an alias), plus the lazy public
    names (``labsupport.MicroBatcher``)."""
    out: dict[str, str] = {}
    for path in sorted(ROOT.rglob("*.py")):
        mod = _module_name(path)
        pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
        try:
            tree = ast.parse(path.read_text())
        except (SyntaxError, OSError, UnicodeDecodeError):
            continue
        for node in _top_level(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    head = pkg.split(".")[:len(pkg.split(".")) - node.level + 1]
                    base = ".".join(head + ([node.module] if node.module else []))
                for a in node.names:
                    if a.name != "*":
                        out[f"{mod}.{a.asname or a.name}"] = f"{base}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        out[f"{mod}.{a.asname}"] = a.name
            elif (isinstance(node, ast.Assign) and len(node.targets) == 1
                  and isinstance(node.targets[0], ast.Name)
                  and node.targets[0].id in ("_API", "_LAZY")
                  and isinstance(node.value, ast.Dict)):
                for k, v in zip(node.value.keys, node.value.values):
                    if isinstance(k, ast.Constant) and isinstance(v, ast.Constant):
                        out[f"{mod}.{k.value}"] = f"{mod}.{v.value}.{k.value}"
    for k in [k for k, v in out.items() if k == v]:
        del out[k]
    return out


@lru_cache(maxsize=1)
def _modules() -> set[str]:
    """Every module of the package, by dotted name."""
    return {_module_name(path) for path in ROOT.rglob("*.py")}


def canonical(name: str) -> str:
    """Where ``name`` (a dotted path into the package) is defined, following re-exports:
    ``labsupport.MicroBatcher`` -> ``labsupport.batching.runtime.MicroBatcher``."""
    aliases = _aliases()
    for _ in range(32):
        parts = name.split(".")
        for k in range(len(parts), 0, -1):
            head, rest = ".".join(parts[:k]), parts[k:]
            if head in aliases:
                name = ".".join([aliases[head], *rest])
                break
        else:
            return name
    return name


def is_under(name: str, ref: str) -> bool:
    """Whether the dotted path ``name`` is ``ref`` or lies inside it."""
    return name == ref or name.startswith(ref + ".")


def _module_of(ref: str) -> str:
    """The module that defines ``ref`` (``ref`` itself when it is a module)."""
    parts = ref.split(".")
    for k in range(len(parts), 0, -1):
        if ".".join(parts[:k]) in _modules():
            return ".".join(parts[:k])
    return ref


def reference_hit(ex: str, dotted: str) -> str | None:
    """The reference of ``ex`` that ``dotted`` (a path into the package) reaches, or None.
    The module that defines a reference (``labsupport.batching.shapes`` for
    ``…shapes.bucket_of``) reaches it too: its attributes are one step away."""
    if not dotted.startswith(PACKAGE):
        return None
    name = canonical(dotted)
    for ref in references(ex):
        if is_under(name, ref) or is_under(dotted, ref) or name == _module_of(ref):
            return ref
    return None


def grader_only(dotted: str) -> bool:
    """Whether an answer cell may not import ``dotted`` from ``labsupport.exercises``."""
    if not is_under(dotted, "labsupport.exercises") or dotted == "labsupport.exercises":
        return False
    last = dotted.rsplit(".", 1)[-1]
    return not (last.startswith("check_") or dotted in STUDENT_HELPERS
                or canonical(dotted) in STUDENT_HELPERS)
