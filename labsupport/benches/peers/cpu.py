"""The CPU the box spends during one bench run, in cores, beside each figure of
``labsupport bench peers``: the whole box, the peer's process tree, the load generator."""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field


@dataclass
class CpuMeter:
    """CPU over one run, in cores (CPU-seconds per second of wall time): the whole box
    (``/proc/stat``), the peer's process tree, this process (the load generator), and
    everything else = box − peer − this process."""
    peer_pid: int | None = None   # None: the peer runs inside this process
    _t0: float = 0.0
    _box0: float = 0.0
    _own0: float = 0.0
    _peer0: dict = field(default_factory=dict)

    def __enter__(self) -> "CpuMeter":
        self._t0, self._box0 = time.monotonic(), _box_busy_s()
        self._own0, self._peer0 = _own_s(), self._peer_times()
        return self

    def __exit__(self, *exc) -> None:
        wall = time.monotonic() - self._t0
        box, own = _box_busy_s() - self._box0, _own_s() - self._own0
        now = self._peer_times()
        peer = sum(v - self._peer0.get(k, 0.0) for k, v in now.items())
        r = lambda x: round(max(0.0, x) / wall, 3)  # noqa: E731
        self.result = {"box_cores": r(box), "peer_cores": r(peer) if self.peer_pid else None,
                       "client_cores": r(own), "other_cores": r(box - peer - own),
                       "cpus": os.cpu_count()}

    def _peer_times(self) -> dict[int, float]:
        if not self.peer_pid:
            return {}
        import psutil
        out = {}
        try:
            root = psutil.Process(self.peer_pid)
            for p in [root, *root.children(recursive=True)]:
                try:
                    t = p.cpu_times()
                    out[p.pid] = t.user + t.system
                except psutil.NoSuchProcess:
                    pass
        except psutil.NoSuchProcess:
            pass
        return out


def _box_busy_s() -> float:
    """CPU-seconds the whole box has been busy (not idle / iowait) since boot."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def _own_s() -> float:
    t = os.times()
    return t.user + t.system


if sys.platform != "linux":  # /proc/stat: the bench reports CPU on Linux only
    def _box_busy_s() -> float:  # noqa: F811
        return 0.0
