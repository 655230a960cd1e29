"""Which replica takes a request: three pickers, the same objects for the live router
(``serving/ops/router.py``) and the replica simulator (``sim.simulator.simulate_replicas``).

- ``round_robin``: the next replica in turn, whatever its load;
- ``least_outstanding``: the replica with the fewest requests in flight (join the
  shortest queue); ties go round-robin so idle replicas share the work;
- ``p2c``: power of two choices: sample two replicas at random, take the less busy one.
  Nearly as good as least-outstanding, yet it needs no global view (what big load
  balancers do).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..validate import check_choice, check_int

ROUTINGS = ("round_robin", "least_outstanding", "p2c")


class Picker:
    """Chooses a replica index from ``outstanding`` (requests in flight per replica)."""

    def __init__(self, n: int, seed: int = 0):
        self.n = check_int("replicas", n, 1, 1024)
        self.rng = np.random.default_rng(seed)

    def pick(self, outstanding: Sequence[int], usable: Sequence[bool] | None = None) -> int:
        if len(outstanding) != self.n or (usable is not None and len(usable) != self.n):
            raise ValueError(f"outstanding and usable must hold one entry per replica "
                             f"({self.n}), got {len(outstanding)}")
        ok = [k for k in range(self.n) if usable is None or usable[k]]
        if not ok:
            raise LookupError("no replica is usable")
        return self._choose(outstanding, ok)

    def _choose(self, outstanding: Sequence[int], ok: list[int]) -> int:
        raise NotImplementedError


class RoundRobin(Picker):
    def __init__(self, n: int, seed: int = 0):
        super().__init__(n, seed)
        self._next = 0

    def _choose(self, outstanding, ok):
        for step in range(self.n):  # the next usable replica in turn
            k = (self._next + step) % self.n
            if k in ok:
                self._next = k + 1
                return k
        raise LookupError("no replica is usable")


class LeastOutstanding(RoundRobin):
    def _choose(self, outstanding, ok):
        low = min(outstanding[k] for k in ok)
        return super()._choose(outstanding, [k for k in ok if outstanding[k] == low])


class PowerOfTwo(Picker):
    def _choose(self, outstanding, ok):
        if len(ok) == 1:
            return ok[0]
        a, b = self.rng.choice(ok, size=2, replace=False)
        return int(a) if outstanding[a] <= outstanding[b] else int(b)


def make_picker(routing: str, n: int, seed: int = 0) -> Picker:
    """A picker by name: one of ``ROUTINGS``."""
    check_choice("routing", routing, ROUTINGS)
    cls = {"round_robin": RoundRobin, "least_outstanding": LeastOutstanding,
           "p2c": PowerOfTwo}[routing]
    return cls(n, seed)
