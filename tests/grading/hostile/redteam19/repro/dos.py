"""redteam19: time similarity.read / tokens on one answer (<= MAX_SOURCE) now and at 1830823.

    .venv/bin/python tests/grading/hostile/redteam19/repro/dos.py [name ...]
    rm -rf /tmp/lg_old && mkdir /tmp/lg_old && git archive 1830823 labgrader | tar -x -C /tmp/lg_old
    LABGRADER_FROM=/tmp/lg_old .venv/bin/python tests/grading/hostile/redteam19/repro/dos.py [name ...]
"""
import sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "redteam17" / "repro"))  # score.py
import score as S
from labgrader import similarity

EX = "ex02_1"
sol = S.solution(EX)
LIMIT = similarity.MAX_SOURCE


def fill(make_one, sep="\n"):
    """sol plus as many copies of make_one(i) as fit in MAX_SOURCE."""
    out, i = [sol, "\n"], 0
    size = len(sol) + 1
    while True:
        piece = make_one(i) + sep
        if size + len(piece) > LIMIT:
            break
        out.append(piece); size += len(piece); i += 1
    return "".join(out)


V = {}
# 1. dead helpers, each a left-assoc chain x+1+1+... of depth D that never folds (x unknown):
#    _Constants.fold calls _folded on every BinOp, which recurses its whole unfolded left operand.
for D in (400, 900):
    V[f"chain{D}"] = fill(lambda i, D=D: f"def _f{i}(x):\n    return x" + "+1" * D + "\n")
# 2. the same with unary minus: one character a level (-(-(-x))) folds the operand each level
for D in (400, 900):
    V[f"unary{D}"] = fill(lambda i, D=D: f"def _g{i}(x):\n    return " + "-" * D + "x\n")

if __name__ == "__main__" and sys.argv[1:2] != ["class"]:
    names = sys.argv[1:] or list(V)
    for name in names:
        src = V[name]
        compile(src, name, "exec")
        for fn in (similarity.read, similarity.tokens):
            t = time.monotonic()
            try:
                r = fn(src)
                out = "None" if r is None else f"{type(r).__name__} of {len(r)}"
            except Exception as e:  # noqa: BLE001
                out = f"RAISES {type(e).__name__}: {str(e)[:60]}"
            print(f"{name:14s} {len(src):6d} chars {fn.__name__:6s}: {out:22s} {time.monotonic() - t:6.1f} s", flush=True)

# python dos.py class NAME: the answer passes its check, and a classmate's (a verbatim copier's)
# copy_reviews beside it (the pipeline: except Exception -> "could not run").
def classmate(name):
    from labsupport.exercises.registry import check_of, exercise
    src = V[name]
    ns = {}
    exec(compile(src, name, "exec"), ns)
    obj = ns[exercise(EX).target]
    check_of(EX)(obj); check_of(EX)(obj, hidden=True)
    print(f"{name}: its check passes (visible and hidden)", flush=True)
    refs = {**similarity.reference_sources(EX), "solution": sol}
    given = S.adapters.cell(EX, "release").source
    t = time.monotonic()
    alone = similarity.copy_reviews({EX: sol}, {EX: refs}, {}, {EX: given})
    print(f"  copier alone: {alone.get(EX, '-')[:90]} ({time.monotonic() - t:.1f} s)", flush=True)
    t = time.monotonic()
    try:
        why = similarity.copy_reviews({EX: sol}, {EX: refs}, {"attacker": {EX: src}}, {EX: given})
    except Exception as e:  # noqa: BLE001
        why = {EX: f"the copy check could not run ({type(e).__name__})"}
    print(f"  copier beside it: {why.get(EX, '-')[:90]} ({time.monotonic() - t:.1f} s)", flush=True)


if __name__ == "__main__" and sys.argv[1:2] == ["class"]:
    for name in sys.argv[2:]:
        classmate(name)
