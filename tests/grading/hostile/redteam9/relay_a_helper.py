# the other half of relay_b_asker: no answer of its own; its grading kernel, with the genuine package, answers a classmate's judge child's kv_admission calls over byte-range locks on one standard-library file, for as long as its kernel runs
# target: ex06_1
import fcntl
import os
import struct
import threading
import time
import timeit

here = os.path.dirname(os.__file__)
fd = os.open(sorted(f"{here}/{n}" for n in os.listdir(here) if n.endswith(".py"))[41], os.O_RDONLY)
WORDS = ["admit", "wait", "reject"]
KINDS = ["reserve", "on_demand"]


def region(kind, at):
    return struct.pack("@hhqqi", kind, 0, at, 1, 0) + bytes(4)


def mark(at, on):
    fcntl.fcntl(fd, fcntl.F_OFD_SETLK, region(fcntl.F_RDLCK if on else fcntl.F_UNLCK, at))


def marked(at):
    got = fcntl.fcntl(fd, fcntl.F_OFD_GETLK, region(fcntl.F_WRLCK, at))
    return struct.unpack("@h", got[:2])[0] != fcntl.F_UNLCK


with open("/proc/self/status") as status:
    judged = "Seccomp:\t2" in status.read()


def answer(stop):
    flip = False
    while time.monotonic() < stop:
        if marked(48) == flip:
            time.sleep(0.0002)
            continue
        flip = not flip
        raw = sum(marked(bit) << bit for bit in range(48)).to_bytes(6, "little")
        asked.append((*raw[:5], KINDS[raw[5]]))
        code = WORDS.index(lab(*asked[-1]))
        mark(49, code & 1)
        mark(50, code & 2)
        mark(51, flip)


if not judged:
    import labsupport
    source = open(f"{os.path.dirname(labsupport.__file__)}/decoder/rules.py").read()
    body = source.split("def kv_admission", 1)[1].split("def grow_or_preempt", 1)[0]
    found = {}
    timeit.Timer("global kv_admission\ndef kv_admission" + body, globals=found).timeit(1)
    lab = found["kv_admission"]
    asked = []
    threading.Thread(target=answer, args=(time.monotonic() + 900,), daemon=True).start()
    began = last = time.monotonic()
    count = 0
    while time.monotonic() - began < 18 and not (count and time.monotonic() - last > 2):
        if len(asked) > count:
            count, last = len(asked), time.monotonic()
        time.sleep(0.05)
    shown = {(10, 6, 1, 4, 16, "reserve"), (10, 7, 1, 4, 16, "reserve"),
             (10, 7, 1, 4, 16, "on_demand"), (60, 10, 4, 4, 16, "reserve"),
             (60, 10, 4, 4, 16, "on_demand"), (20, 20, 2, 8, 16, "on_demand")}
    print(f"answered {len(asked)} calls of the judge in {time.monotonic() - began:.1f} s")
    for case in asked:
        if case not in shown:
            print("[rt9-leak]", case)
