"""redteam18: the instructors' BlockPool (ex06_8) with its state moved to a holder, one
spelling of the holder's binding changed; each scored (best_match, token order, flagged
alone) and run through the exercise's check (visible and hidden).

    .venv/bin/python tests/grading/hostile/redteam18/repro/spellings.py
"""
import re, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "redteam17" / "repro"))  # score.py
import score as S
from labsupport.exercises.registry import check_of, exercise
EX = "ex06_8"
sol = S.solution(EX)
ATTRS = ["block_size", "free_blocks", "refs", "tables", "lengths"]
pat = re.compile(r"self\.(" + "|".join(ATTRS) + r")\b")
INIT = "    def __init__(self, num_blocks, block_size):\n"
held = pat.sub(lambda m: f"self.t.{m.group(1)}", sol)
V = {"solution": sol}
def bind(line, head=""):
    return head + held.replace(INIT, INIT + f"        {line}\n", 1)
V["holder_call (caught)"] = bind("self.t = SimpleNamespace()", "from types import SimpleNamespace\n\n")
V["holder_annotated"] = bind("self.t: SimpleNamespace = SimpleNamespace()", "from types import SimpleNamespace\n\n")
V["holder_chained"] = bind("self.t = t = SimpleNamespace()", "from types import SimpleNamespace\n\n")
V["holder_lambda"] = bind("self.t = lambda: None")
V["holder_tuple"] = bind("self.t, self.n = SimpleNamespace(), 0", "from types import SimpleNamespace\n\n")
V["holder_walrus"] = bind("self.t = (t := SimpleNamespace())", "from types import SimpleNamespace\n\n")
for name, src in V.items():
    ns = {}
    try:
        exec(compile(src, name, "exec"), ns)
        obj = ns[exercise(EX).target]
        check_of(EX)(obj); check_of(EX)(obj, hidden=True); ok = "check passes"
    except BaseException as e:  # noqa: BLE001
        ok = f"check FAILS: {type(e).__name__} {str(e)[:50]}"
    print(S.line(name, EX, src), ok, flush=True)
