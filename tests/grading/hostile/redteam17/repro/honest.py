"""redteam17: honest answers (redteam13's honest_pool13, honest_batcher13, honest_eager13) re-spelled
the ways 2633a2d's rules read (list slots, [:] copies, config holders, self.x = self,
type(self).x, a staticmethod's first parameter as an owner), scored now and before:

    .venv/bin/python tests/grading/hostile/redteam17/repro/honest.py
    rm -rf /tmp/lg17_old && mkdir /tmp/lg17_old && git archive 1830823 labgrader | tar -x -C /tmp/lg17_old
    LABGRADER_FROM=/tmp/lg17_old .venv/bin/python tests/grading/hostile/redteam17/repro/honest.py
"""
import sys, re
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
import score as S
import hostile_cases
C = {c.name: c.source for c in hostile_cases.cases()}
pool, bat, eag = C["honest_pool13"], C["honest_batcher13"], C["honest_eager13"]
V = {}
V["pool as written"] = ("ex06_8", pool)
V["pool [:] copies"] = ("ex06_8", pool.replace("list(self.blocks[seq])", "self.blocks[seq][:]").replace("list(self.blocks[parent])", "self.blocks[parent][:]"))
V["pool stats slots"] = ("ex06_8", pool.replace("        self.ntok = {}\n", "        self.ntok = {}\n        self.stats = [0, 0]\n").replace("        self.holders[b] = 1\n", "        self.holders[b] = 1\n        self.stats[0] += 1\n").replace("            self.free_list.append(b)\n", "            self.free_list.append(b)\n            self.stats[1] += 1\n"))
cfg = pool.replace("        self.block_size = block_size\n", "        self.cfg = PoolConfig(block_size=block_size)\n").replace("self.block_size", "self.cfg.block_size")
V["pool cfg dataclass kw"] = ("ex06_8", "from dataclasses import dataclass\n\n\n@dataclass\nclass PoolConfig:\n    block_size: int = 16\n\n\n" + cfg)
rec = pool
V["pool [:] + holder_list"] = ("ex06_8", V["pool [:] copies"][1].replace("self.free_list", "self.st.free_list").replace("self.holders", "self.st.holders").replace("        self.block_size = block_size\n", "        self.block_size = block_size\n        self.st = SimpleNamespace()\n"))
V["pool self.me = self"] = ("ex06_8", pool.replace("        self.block_size = block_size\n", "        self.block_size = block_size\n        self.pool = self\n").replace("self.free_list", "self.pool.free_list"))
# staticmethod making 'b' an owner
V["pool staticmethod(b)"] = ("ex06_8", pool.replace("    def num_free(self):", "    @staticmethod\n    def _addr(b, bs, off):\n        return b * bs + off\n\n    def num_free(self):").replace("return blocks[-1] * self.block_size + offset", "return self._addr(blocks[-1], self.block_size, offset)"))
V["batcher as written"] = ("ex02_1", bat)
V["batcher [:]"] = ("ex02_1", bat.replace("batch, self.waiting = self.waiting[:self.max_batch], self.waiting[self.max_batch:]", "batch = self.waiting[:][:self.max_batch]\n        self.waiting = self.waiting[self.max_batch:]"))
V["batcher cfg kw"] = ("ex02_1", "from types import SimpleNamespace\n" + bat.replace("        self.max_batch = max_batch\n        self.window = max_delay_ms / 1000.0\n", "        self.cfg = SimpleNamespace(max_batch=max_batch, window=max_delay_ms / 1000.0)\n").replace("self.max_batch", "self.cfg.max_batch").replace("self.window", "self.cfg.window"))
V["batcher timer slot"] = ("ex02_1", bat.replace("        self.running = set()\n", "        self.running = set()\n        self.stats = [0, 0]\n").replace("        outputs = self.infer_fn(", "        self.stats[0] += 1\n        self.stats[1] = max(self.stats[1], len(batch))\n        outputs = self.infer_fn("))
V["eager as written"] = ("ex02_3", eag)
V["eager flag cell"] = ("ex02_3", eag.replace("    busy = False\n", "    def __init__(self, *args, **kwargs):\n        super().__init__(*args, **kwargs)\n        self.flag = [False]\n").replace("self.busy", "self.flag[0]"))
V["eager flag type(self)"] = ("ex02_3", eag.replace("self.busy", "type(self).busy") )
V["eager state holder"] = ("ex02_3", eag.replace("    busy = False\n", "    def __init__(self, *args, **kwargs):\n        super().__init__(*args, **kwargs)\n        self.state = Flags()\n").replace("self.busy", "self.state.busy").replace("class EagerBatcher", "class Flags:\n    busy = False\n\n\nclass EagerBatcher"))
V["eager copy [:]"] = ("ex02_3", eag.replace("batch = self.queue[:self.max_batch]\n                self.queue = self.queue[self.max_batch:]", "batch = self.queue[:][:self.max_batch]\n                del self.queue[:self.max_batch]"))
V["eager as dict state"] = ("ex02_3", eag.replace("    busy = False\n", "    def __init__(self, *args, **kwargs):\n        super().__init__(*args, **kwargs)\n        self.st = {'is busy': False}\n").replace("self.busy", "self.st['is busy']"))
for k, (ex, v) in V.items():
    compile(v, k, "exec")
    print(S.line(k, ex, v))
