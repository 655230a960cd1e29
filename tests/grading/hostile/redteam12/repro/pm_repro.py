"""pm_oracle without nbgrader or boxes (~15 s): one process runs the case's plain cells as
its kernel would (the lab's formula, the page-cache server); a forked child loads the judge
child's own seccomp filter (labgrader.syscalls.load) and calls the answer cell's
kv_admission on 300 random cases. Run from the repository root:

    .venv/bin/python tests/grading/hostile/redteam12/repro/pm_repro.py
"""
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT))
from labgrader import syscalls  # noqa: E402
from labsupport.decoder.rules import kv_admission as lab  # noqa: E402

answer, server, *_ = (Path(__file__).resolve().parents[1] / "pm_oracle.py").read_text().split(
    "# --- next cell ---")
syscalls.prepare()
kernel = os.fork()
if kernel == 0:  # the "kernel": no filter; serves while the child asks (its cell holds <= 18 s)
    g = {"__name__": "kernel"}
    exec(answer, g)
    exec(server, g)
    g["_hold"](30.0, 4.0)
    os._exit(0)
r, w = os.pipe()
child = os.fork()
if child == 0:  # the judge's child: the filter first, then the answer cell
    syscalls.load(w)
    g = {"__name__": "child"}
    exec(answer, g)
    rng = random.Random(1)
    ok, n, t = 0, 300, time.monotonic()
    for _ in range(n):
        args = (rng.randint(0, 200), rng.randint(0, 100), rng.randint(0, 20), rng.randint(1, 20),
                rng.choice([4, 8, 16]), rng.choice(["reserve", "on_demand"]))
        ok += g["kv_admission"](*args) == lab(*args)
    os.write(w, f"under the filter (Seccomp: 2 = {g['_JUDGED']}): answers equal to the lab's: "
                f"{ok} / {n} in {time.monotonic() - t:.2f} s\n".encode())
    os._exit(0)
os.close(w)
print(os.read(r, 1000).decode(), end="")
os.waitpid(child, 0)
os.waitpid(kernel, 0)
