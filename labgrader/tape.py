"""The trusted pass's record of what each call of the student's code gave back
(``Tape``), and how a forged record shows in the judge (``TapeMismatch``)."""
from __future__ import annotations

from labsupport.exercises.guard import Tampered, watched as run_watched

from . import wire


class TapeMismatch(AssertionError):
    """In the judge: the check asked for a call the record does not hold."""


class Tape:
    """The trusted pass's record of what each call of the student's code gave back.

    Beside the student's code (``Tape()``) a call runs, and its outcome — a value or an
    exception — is written with ``wire.encode``; the check goes on with the decoded copy.
    A value of any other type than the record holds (``wire.NotPlain``) makes the call
    fail. In the judge (``Tape(records)``) nothing runs: the check gets the recorded outcomes
    back, in order. So the check decides in a process where no student code ever ran, on
    plain values; a record that does not fit the check (one forged, cut or padded) is a
    ``TapeMismatch``. A call inside a recorded call (a lab driver calling the student's
    function) runs as part of the outer one. ``armed``: recording starts with the test cell."""

    def __init__(self, records: list | None = None):
        self.replaying = records is not None
        self.records: list = [] if records is None else list(records)
        self.armed = self.replaying
        self._next = 0
        self._depth = 0

    def call(self, ex: str, fn, args: tuple, kw: dict, watched: bool = True):
        if self.replaying:
            if self._next >= len(self.records):
                raise TapeMismatch(f"{ex}: the record holds fewer calls than the check makes")
            rec = self.records[self._next]
            self._next += 1
            if type(rec) is not list or len(rec) != 3 or rec[0] != ex or rec[1] not in ("return", "raise"):
                raise TapeMismatch(f"{ex}: call {self._next} of the record does not fit the check")
            value = wire.decode(rec[2])
            if rec[1] == "raise":
                if not isinstance(value, BaseException):
                    raise TapeMismatch(f"{ex}: call {self._next} raised a non-exception")
                raise value
            return value
        if self._depth:
            return run_watched(ex, fn, args, kw)

        def recorded(*a, **k):  # encoded before the watch ends: nothing of the student's runs after it
            return wire.encode(fn(*a, **k), strict=True)
        self._depth += 1
        try:
            data, kind = (run_watched(ex, recorded, args, kw) if watched else recorded(*args, **kw)), "return"
        except Tampered:
            raise
        except BaseException as exc:  # noqa: BLE001 - the student's outcome, recorded
            if type(exc) is wire.NotPlain:
                exc = AssertionError(f"{ex}: your code gave back {exc.args[0]}")
            data, kind = wire.encode(exc), "raise"
        finally:
            self._depth -= 1
        self.records.append([ex, kind, data])
        out = wire.decode(data)
        if kind == "raise":
            raise out
        return out

    def finished(self) -> bool:
        """In the judge: every recorded call was asked for."""
        return self._next == len(self.records)
