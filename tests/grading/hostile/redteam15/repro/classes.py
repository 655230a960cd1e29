"""redteam15 hole 1, in process: the exercises whose check lets an exception the answer raised
on a hidden case through, so the hidden verdict (trusted._hidden_verdict) names its class.

    .venv/bin/python tests/grading/hostile/redteam15/repro/classes.py
"""
import os
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 5))
import sys, types, asyncio, warnings  # noqa: E401
sys.path.insert(0, "tests"); sys.path.insert(0, "tests/exercises")
warnings.simplefilter("ignore")
import test_hidden_text as t
import adapters
def raiser(*a, **k):
    raise asyncio.InvalidStateError()
class RaiserCls:
    def __init__(self, *a, **k): raise asyncio.InvalidStateError()
for ex in t.EXERCISES:
    for ans in (raiser, RaiserCls):
        try:
            err = t._failure(ex, ans, True, phase=True)
        except BaseException as e:
            err = e
        if err is None: continue
        v = t._verdict(ex, err)
        if "InvalidState" in v:
            print(ex, ans.__name__, v[:150])
