# a wrong speedup_parts that looks for the run's case memo (the hidden cases the judge was handed) from where it runs: the judge's standard input and memory through /proc, its own process's casememo, any file named like a memo entry on the disks it sees, the environment; the judge's child says what it found in its error (the student's feedback), the kernel prints it
# target: ex06_7
import operator
import os

import labsupport
from labsupport.exercises.ex06 import check_ex06_6  # noqa: F401 - loads casememo too


def _try(what, path, n=40):
    try:
        with open(path, "rb") as f:
            return f"{what}=" + repr(f.read(n))[:40]
    except OSError as err:
        return f"{what}={type(err).__name__}"


def _look() -> str:
    memo = operator.attrgetter("exercises.casememo")(labsupport)
    seen = [f"given={sorted(memo._GIVEN)[:3]} built={len(memo._BUILT)}",
            _try("in1", "/proc/1/fd/0"), _try("env1", "/proc/1/environ"),
            _try("mem1", "/proc/1/mem"), _try("inpp", f"/proc/{os.getppid()}/fd/0")]
    found = []
    for top in ("/tmp", "/var/tmp", "/dev/shm", "/run", os.path.expanduser("~")):
        for folder, subs, files in os.walk(top):
            if folder.count("/") > 6:
                subs[:] = []
            found += [os.path.join(folder, f) for f in files
                      if "__sweeps__" in f or "__pairs__" in f or "memo" in f]
    try:
        with open("/proc/self/environ", "rb") as f:
            env = [v.split(b"=")[0].decode() for v in f.read().split(bytes(1)) if b"MEMO" in v.upper()]
    except OSError as err:  # a kernel is not dumpable: its own environ is closed to it
        env = type(err).__name__
    return "; ".join(seen + [f"files={found[:4]}", f"env={env}"])


with open("/proc/self/status") as _status:
    if "Seccomp:\t2" not in _status.read():  # the kernel (the judge's child has a filter)
        print("[rt10-snoop] kernel:", _look())


def speedup_parts(fast, slow):
    raise RuntimeError("[rt10-snoop] " + _look())
