# an honest md1_wait_ms that records every case it is asked; on the third hidden case it returns, instead of a number, a dict nested two deep whose keys are 79-digit ints packing the hidden cases it saw, around a set: plain() names the path to the set with describe(key) for each key, and describe prints an int whole (repr, 80 characters), hidden or not; the check's message is the verdict VerdictsOnly keeps
# target: ex01_3
import math

_VISIBLE = {(50.0, 10.0), (80.0, 10.0), (20.0, 25.0), (100.0, 10.0), (250.0, 5.0)}  # check_ex01_3's visible cases (the package ships them)
_seen = []


def _packed(text):
    """text as ints below 10**79 (32 bytes each): digits, which describe never shortens."""
    raw = text.encode()
    return [int.from_bytes(raw[i:i + 32], "big") for i in range(0, len(raw), 32)]


def md1_wait_ms(rate_per_s, service_ms):
    """Mean time (ms) a request waits in the queue of an M/D/1 server; math.inf if ρ ≥ 1."""
    rho = rate_per_s * service_ms / 1000.0
    if (rate_per_s, service_ms) not in _VISIBLE:
        _seen.append((rate_per_s, service_ms))
        if len(_seen) == 3:  # every hidden below-capacity case asked so far
            k1, k2 = (_packed("[rt9-leak" + "] (" + " ".join(f"{r:.4g},{s:.4g}" for r, s in _seen))
                      + [0, 0])[:2]
            return {k1: {k2: set()}}
    if rho >= 1:
        return math.inf
    return rho * service_ms / (2 * (1 - rho))
