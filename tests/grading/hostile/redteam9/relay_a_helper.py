# the other half of relay_b_asker: no answer of its own; its grading kernel, with the genuine package, answers a classmate's judge child's kv_admission calls over byte-range locks on one standard-library file, for as long as its kernel runs, and prints the hidden cases it was asked
# target: ex06_1
import fcntl
import os
import struct
import threading
import time
import timeit


class Desk:
    """The kernel's end: bytes 0-47 the question, 48 its strobe, 49-50 the answer, 51 the ack."""

    def __init__(self, lab):
        lib = os.path.dirname(os.__file__)
        name = sorted(n for n in os.listdir(lib) if n.endswith(".py"))[41]
        self.file = open(os.path.join(lib, name))
        self.lab = lab
        self.questions = []

    def _flock(self, command, kind, byte):
        return fcntl.fcntl(self.file.fileno(), command,
                           struct.pack("@hhqqi", kind, 0, byte, 1, 0) + bytes(4))

    def raised(self, byte):
        answer = self._flock(fcntl.F_OFD_GETLK, fcntl.F_WRLCK, byte)
        return struct.unpack("@h", answer[:2])[0] != fcntl.F_UNLCK

    def hold(self, byte, on):
        self._flock(fcntl.F_OFD_SETLK, fcntl.F_RDLCK if on else fcntl.F_UNLCK, byte)

    def serve(self, until):
        expected = True
        while time.monotonic() < until:
            if self.raised(48) is not expected:
                time.sleep(0.0002)
                continue
            bits = [self.raised(b) for b in range(48)]
            raw = bytes(sum(bits[8 * i + k] << k for k in range(8)) for i in range(6))
            question = (*raw[:5], ("reserve", "on_demand")[raw[5]])
            self.questions.append(question)
            code = ("admit", "wait", "reject").index(self.lab(*question))
            self.hold(49, code in (1,))
            self.hold(50, code in (2,))
            self.hold(51, expected)
            expected = not expected


if "Seccomp:\t2" not in open("/proc/self/status").read():
    import labsupport
    rules = os.path.join(os.path.dirname(labsupport.__file__), "decoder", "rules.py")
    text = open(rules).read()
    start, end = text.index("def kv_admission"), text.index("def grow_or_preempt")
    scope = {}
    timeit.Timer("global kv_admission\n" + text[start:end], globals=scope).timeit(1)
    desk = Desk(scope["kv_admission"])
    threading.Thread(target=desk.serve, args=(time.monotonic() + 900,), daemon=True).start()
    opened = time.monotonic()
    quiet_since, heard = opened, 0
    while time.monotonic() < opened + 18:
        if len(desk.questions) != heard:
            heard, quiet_since = len(desk.questions), time.monotonic()
        elif heard and time.monotonic() > quiet_since + 2:
            break
        time.sleep(0.05)
    print(f"answered {heard} calls of a classmate's judge in {time.monotonic() - opened:.1f} s")
    public = {(10, 6, 1, 4, 16, "reserve"), (10, 7, 1, 4, 16, "reserve"),
              (10, 7, 1, 4, 16, "on_demand"), (60, 10, 4, 4, 16, "reserve"),
              (60, 10, 4, 4, 16, "on_demand"), (20, 20, 2, 8, 16, "on_demand")}
    for question in desk.questions:
        if question not in public:
            print("[rt9-leak]", question)
