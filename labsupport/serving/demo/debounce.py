"""A burst of slider moves becomes one change: ``Debounce`` collects values by name and
calls ``fn(**values)`` once, ``delay_s`` after the last of them (a drag, key presses)."""
from __future__ import annotations

import threading
from typing import Callable

from ...validate import check_float


class Debounce:
    """``add(name, value)`` (re)starts the timer; ``flush()`` calls at once if anything is
    pending; ``fn`` runs in the timer's daemon thread, with the latest value per name."""

    def __init__(self, fn: Callable[..., object], delay_s: float):
        self.fn = fn
        self.delay_s = check_float("debounce_s", delay_s, 0.0, 10.0)
        self._values: dict = {}
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    @property
    def pending(self) -> dict:
        """The values not sent yet (a copy)."""
        with self._lock:
            return dict(self._values)

    def add(self, name: str, value) -> None:
        with self._lock:
            self._values[name] = value
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.delay_s, self.flush)
            self._timer.daemon = True
            self._timer.start()

    def flush(self) -> None:
        with self._lock:
            values, self._values = self._values, {}
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        if values:
            self.fn(**values)
