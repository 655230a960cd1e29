"""Minimal reproduction (no nbgrader): a notebook-05 grading kernel's box (its package view,
view.for_kernel of 05's exercises) answers, over the page cache, a process boxed under another
uid with the judge child's seccomp filter (labgrader.syscalls.load) and the notebook-06 view
(ex06_2's references stubs), which asks kv_admission for 300 random cases."""
import itertools, json, os, random, socket, sys, threading, time
from pathlib import Path
from labgrader import view
from labgrader.sandbox import Sandbox
HERE = Path(__file__).resolve().parents[0]
CASES = Path(__file__).resolve().parents[1]
helper = (CASES / "pcr_a_helper.py").read_text()
asker = (CASES / "pcr_b_asker.py").read_text()
child = r'''
import socket, sys, json, random
a, b = socket.socketpair()
from labgrader import syscalls
syscalls.load(b.fileno())          # the judge's child's filter (fork/exec killed, locks refused)
src = open(sys.argv[1]).read()
ns = {"__name__": "answer"}
exec(compile(src, "answer", "exec"), ns)
from labsupport.decoder import rules
try:
    rules.kv_admission(10, 6, 1, 4, 16); genuine_here = True
except Exception as e:
    genuine_here = type(e).__name__
random.seed(7)
qs = [(random.randrange(1, 200), random.randrange(1, 50), random.randrange(0, 16), random.randrange(1, 16),
       random.choice([4, 8, 16]), random.choice(["reserve", "on_demand"])) for _ in range(300)]
import time
t = time.monotonic()
out = [ns["kv_admission"](*q) for q in qs]
print(json.dumps({"genuine_in_child": genuine_here, "qs": qs, "answers": out, "s": time.monotonic() - t}), flush=True)
import os; os._exit(0)  # an exit would close the filter's channel (killed: SIGSYS)
'''
course = Path("/tmp/rt11course"); course.mkdir(exist_ok=True)
(course / "a.py").write_text(asker); (course / "h.py").write_text(helper); (course / "c.py").write_text(child)
ex05, ex06 = ("ex05_4", "ex05_5", "ex05_6"), ("ex06_1", "ex06_10", "ex06_2", "ex06_4", "ex06_5", "ex06_6", "ex06_7", "ex06_8", "ex06_9")
res = {}
def go(name, argv, uid, exs, stdin):
    box = Sandbox(mode="namespaces", uid_base=uid).open(  # uids 68593/68594: apart from the class
        course, views={str(view.ROOT): str(view.for_kernel(exs))})
    try:
        res[name] = box.run(argv, stdin, 60)
    finally:
        box.close()
# the box's folders: /tmp/rt11course is hidden in the box, so pass the sources on stdin
kern = "import sys, time; exec(compile(sys.stdin.read(), 'helper', 'exec'), {'__name__': '__main__'}); time.sleep(12)"
chld = ("import sys; d = sys.stdin.read().split('\\0'); open('/tmp/a.py','w').write(d[0]); "
        "sys.argv = ['c', '/tmp/a.py']; exec(compile(d[1], 'c', 'exec'), {'__name__': '__main__'})")
ts = [threading.Thread(target=go, args=("kernel05", [sys.executable, "-c", kern], 68593, ex05, helper)),
      threading.Thread(target=go, args=("child06", [sys.executable, "-c", chld], 68594, ex06, asker + "\0" + child))]
for t in ts: t.start(); time.sleep(2)
for t in ts: t.join()
k = res["kernel05"]; c = res["child06"]
print("kernel05 rc", k[0], k[1][:300], k[2][-600:])
print("child06 rc", c[0], c[2][-1500:])
if c[0] == 0:
    d = json.loads(c[1].strip().splitlines()[-1])
    from labsupport.decoder.rules import kv_admission as lab
    right = sum(lab(*q) == a for q, a in zip(d["qs"], d["answers"]))
    print("child: kv_admission genuine in its own view:", d["genuine_in_child"], "| answers equal to the lab's:", right, "/", len(d["qs"]), "in", round(d["s"], 2), "s")
