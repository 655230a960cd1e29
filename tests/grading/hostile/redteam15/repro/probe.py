"""redteam15's in-process measurements (no grading run): the copy review's score of one-edit
variants of redteam14's namespace copies (``canonical._Namespaces`` after fix47), and the
alphabet a hidden verdict's class name can spell (holes 1, 2).

    .venv/bin/python tests/grading/hostile/redteam15/repro/probe.py
"""
import math
import re
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tests"))

import adapters  # noqa: E402
from labgrader import similarity, trusted, wire  # noqa: E402
from labsupport.exercises.plain import class_name  # noqa: E402
import labsupport.exercises.ex03, labsupport.exercises.ex09  # noqa: E402,F401

MARKS = {"### BEGIN SOLUTION", "### END SOLUTION"}


def score(ex, src):
    solution = "\n".join(line for line in adapters.cell(ex).source.splitlines()
                         if line.strip() not in MARKS)
    refs = {**similarity.reference_sources(ex), "solution": solution}
    given = adapters.cell(ex, "release").source
    flagged = similarity.copy_reviews({ex: src}, {ex: refs}, {}, {ex: given})
    order = similarity.in_order(similarity.tokens(src), similarity.tokens(solution))
    m = similarity.best_match(src, refs, given)
    return round(m.score, 2), m.how, round(order, 3), bool(flagged)


for name in ("pool_dict_call", "batcher_dict_call"):
    src = (ROOT / f"tests/grading/hostile/redteam14/{name}.py").read_text()
    ex = re.search(r"# target: (\w+)", src).group(1)
    key = re.search(r"self\.s\['(\w+)'\]", src).group(1)
    variants = {
        "as committed": src,
        "len(self.s) once (a no-op line)": src.replace("        self.s = dict()\n", "        self.s = dict()\n        assert not len(self.s)\n", 1),
        "keys as constants K_x": re.sub(r"self\.s\['(\w+)'\]", r"self.s[K_\1]", src) + "\n" + "\n".join(
            f"K_{k} = '{k}'" for k in sorted(set(re.findall(r"self\.s\['(\w+)'\]", src)))),
        "self.t.s[...] (one level down)": src.replace("self.s", "self.t.s").replace(
            "self.t.s = dict()", "self.t = types.SimpleNamespace(); self.t.s = dict()", 1),
    }
    for label, v in variants.items():
        compile(v, name, "exec")  # each variant parses
        print(f"{name} ({ex}) {label:40}", score(ex, v))

# holes 1, 2: the names a hidden verdict can print
for home, qual in [("builtins", "memoryview"), ("asyncio", "PriorityQueue"),
                   ("labsupport.exercises.ex03", "np.random.Generator")]:
    exc = wire.decode(trusted._scrubbed({"e": [home, qual], "base": "Exception", "args": ["x"]}))
    print(f"record ({home}, {qual}) -> verdict names {class_name(type(exc))!r}")
names, seen = set(), set()
todo = [(sys.modules[m], 0) for m in list(sys.modules) if m.startswith(wire.EXCEPTION_HOMES)]
while todo:
    mod, d = todo.pop()
    if id(mod) in seen:
        continue
    seen.add(id(mod))
    for a in list(getattr(mod, "__dict__", {})):
        try:
            v = getattr(mod, a)
        except Exception:  # noqa: BLE001
            continue
        if isinstance(v, type):
            names.add(a)
        elif isinstance(v, types.ModuleType) and d < 3:
            todo.append((v, d + 1))
print(f"hole 2: {len(names)} type names reachable from {len(seen)} modules: "
      f"{math.log2(len(names)):.1f} bits a verdict")
