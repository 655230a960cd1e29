# a wrong pick_max_seqs behind a poisoned case memo: in every process the answer cell runs in (the kernel, the judge's child) it makes casememo hand back one hand-made row for ex06_6's visible cases (and for every name the memo holds), drops the same bytes into any folder named like a memo it can reach, and answers that row (max_seqs=7) whatever it is asked
# target: ex06_6
# others: honest
import operator
import os

import labsupport
from labsupport.exercises.ex06 import check_ex06_6  # noqa: F401 - loads the check (and its memo)

_ROW = {"max_seqs": 7, "goodput_rps": 9.0, "ttft_p99_ms": 1.0, "tpot_p99_ms": 0.1,
        "tokens_per_s": 1.0}
_TABLE = [([_ROW], 100.0, 4.0, "one row, made here")]
_done = []
try:
    _memo = operator.attrgetter("exercises.casememo")(labsupport)
    _memo.cases("rt10", "table", False, lambda: _TABLE)  # its own pickle of the table
    _bytes = _memo.built()["rt10/table/visible"]
    _names = {"ex06_6/sweeps/visible", *_memo._GIVEN, *_memo._BUILT} - {"rt10/table/visible"}
    _memo.give({n: _bytes for n in _names})
    _done.append(f"poisoned {len(_names)} name(s) in pid {os.getpid()}")
    for _top in ("/tmp", "/var/tmp", "/dev/shm", os.path.expanduser("~")):
        for _dir, _subs, _files in os.walk(_top):
            if _dir.count("/") > 5:
                _subs[:] = []
            if "memo" in os.path.basename(_dir):
                try:
                    with open(os.path.join(_dir, "ex06_6__sweeps__visible"), "wb") as _f:
                        _f.write(_bytes)
                    _done.append(f"wrote into {_dir}")
                except OSError as _err:
                    _done.append(f"{_dir}: {type(_err).__name__}")
except Exception as _err:  # noqa: BLE001 - say what happened, answer anyway
    _done.append(f"{type(_err).__name__}: {_err}"[:120])
print("[rt10-poison]", "; ".join(_done))


def pick_max_seqs(rows, slo_ttft_ms, slo_tpot_ms):
    """The poisoned table's answer, whatever the rows."""
    return 7
