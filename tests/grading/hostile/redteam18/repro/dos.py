"""redteam18: one classmate's answer against the whole class's copy review (spelling.py).

1. ``overflow``: an honest answer (the instructors' Batcher, ex02_1) with a dead helper
   ``def _never(): return 0x<400 f> * 1.0``. ``_Constants`` folds int * float and CPython
   raises ``OverflowError`` (int too large to convert to float), which ``read``/``tokens``
   do not catch: ``copy_reviews`` raises for the student *and for every classmate*
   (``best_match`` reads each classmate's answer with ``known``), so the pipeline writes
   "the copy check could not run (OverflowError)" on every answer of the notebook of every
   student of the class, and no copy is reported as a copy.
2. ``slow``: the same answer with a dead helper ``return [1,1,…(≈49k)] + x + x … (d=450)``:
   ``_Holders.__init__`` walks the subtree of every node (``{x.id for x in ast.walk(n)}``),
   n·depth ≈ 23 M node visits; one ``normalised`` takes ~60 s (1830823: ~2 s), ``known`` =
   two of them, read in every classmate's job before its deadline is checked.

    .venv/bin/python tests/grading/hostile/redteam18/repro/dos.py            # overflow + timing of read
    .venv/bin/python tests/grading/hostile/redteam18/repro/dos.py class      # + a classmate's copy_reviews (minutes)
    LABGRADER_FROM=/tmp/lg18_old .venv/bin/python tests/grading/hostile/redteam18/repro/dos.py
"""
import sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "redteam17" / "repro"))  # score.py
import score as S
from labgrader import similarity
from labsupport.exercises.registry import check_of, exercise

EX = "ex02_1"
sol = S.solution(EX)
overflow = sol + "\n\ndef _never():\n    return 0x" + "f" * 400 + " * 1.0\n"
D = 450
tail = "]" + " + x" * D + "\n"
head = "\n\ndef _never():\n    return ["
slow = sol + head + ",".join(["1"] * ((99_000 - len(sol) - len(head) - len(tail)) // 2)) + tail
refs = {**similarity.reference_sources(EX), "solution": sol}
given = S.adapters.cell(EX, "release").source
copier = sol  # a classmate who handed in the instructors' Batcher as it is


def run(name, src, do_class):
    ns = {}
    exec(compile(src, name, "exec"), ns)
    obj = ns[exercise(EX).target]
    check_of(EX)(obj); check_of(EX)(obj, hidden=True)
    print(f"{name}: {len(src)} chars, its check passes (visible and hidden)")
    for fn in (similarity.read, similarity.tokens):
        t = time.monotonic()
        try:
            r = fn(src)
            out = "None" if r is None else f"{type(r).__name__} of {len(r)}"
        except Exception as e:  # noqa: BLE001
            out = f"RAISES {type(e).__name__}: {e}"
        print(f"  {fn.__name__}: {out} in {time.monotonic() - t:.1f} s", flush=True)
    if not do_class:
        return
    t = time.monotonic()
    try:  # what the pipeline does with it (pipeline.py: except Exception -> "could not run")
        why = similarity.copy_reviews({EX: copier}, {EX: refs}, {"attacker": {EX: src}}, {EX: given})
    except Exception as e:  # noqa: BLE001
        why = {EX: f"the copy check could not run ({type(e).__name__})"}
    print(f"  the copier's review beside it: {why.get(EX, '-')[:110]} ({time.monotonic() - t:.1f} s)")


do_class = "class" in sys.argv[1:]
t = time.monotonic()
print("the copier alone:", similarity.copy_reviews({EX: copier}, {EX: refs}, {}, {EX: given}).get(EX, "-")[:80],
      f"({time.monotonic() - t:.1f} s)")
run("overflow", overflow, True)
run("slow", slow, do_class)
