"""redteam19: honest answers (redteam13's honest_batcher13, honest_pool13) re-spelled with a
holder bound the ways ea943b9 newly takes (BoolOp/IfExp/attribute of a parameter, tuple
target, annotated, chained, lambda), scored now and at 1830823 (as redteam17/repro/honest.py):

    .venv/bin/python tests/grading/hostile/redteam19/repro/honest.py
    LABGRADER_FROM=/tmp/lg_old .venv/bin/python tests/grading/hostile/redteam19/repro/honest.py
"""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "redteam17" / "repro"))  # score.py
import score as S
import hostile_cases
C = {c.name: c.source for c in hostile_cases.cases()}
bat, pool = C["honest_batcher13"], C["honest_pool13"]
INIT = "        self.max_batch = max_batch\n        self.window = max_delay_ms / 1000.0\n"
SN = "from types import SimpleNamespace\n"


def cfg(binding, head=SN, sig=None):
    out = bat.replace(INIT, binding).replace("self.max_batch", "self.cfg.max_batch") \
        .replace("self.window", "self.cfg.window")
    if sig:
        out = out.replace("def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0):", sig)
    return head + out


KW = "SimpleNamespace(max_batch=max_batch, window=max_delay_ms / 1000.0)"
SIG = "def __init__(self, infer_fn, max_batch=32, max_delay_ms=10.0, config=None):"
V = {
    "batcher as written": ("ex02_1", bat),
    "cfg = call (old rule)": ("ex02_1", cfg(f"        self.cfg = {KW}\n")),
    "cfg = config or call": ("ex02_1", cfg(f"        self.cfg = config or {KW}\n", sig=SIG)),
    "cfg = call if None": ("ex02_1", cfg(f"        self.cfg = {KW} if config is None else config\n", sig=SIG)),
    "cfg = infer_fn.cfg": ("ex02_1", cfg("        self.cfg = getattr(infer_fn, 'cfg', None) or "
                                           f"{KW}\n")),
    "cfg: NS = call (ann)": ("ex02_1", cfg(f"        self.cfg: SimpleNamespace = {KW}\n")),
    "cfg = self.c2 = call": ("ex02_1", cfg(f"        self.cfg = self.defaults = {KW}\n")),
    "cfg, st = call, call": ("ex02_1", cfg(f"        self.cfg, self.st = {KW}, SimpleNamespace()\n")),
    "cfg dict-free lambda": ("ex02_1", cfg("        self.cfg = (lambda: None)\n"
                                             "        self.cfg.max_batch = max_batch\n"
                                             "        self.cfg.window = max_delay_ms / 1000.0\n")),
    "pool as written": ("ex06_8", pool),
    "pool cfg or": ("ex06_8", SN + pool.replace(
        "        self.block_size = block_size\n",
        "        self.cfg = None or SimpleNamespace(block_size=block_size)\n").replace(
        "self.block_size", "self.cfg.block_size")),
}
for k, (ex, v) in V.items():
    compile(v, k, "exec")
    print(S.line(k, ex, v), flush=True)
