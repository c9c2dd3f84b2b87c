"""The order workers change the browser's state in: one at a time, in the order their
turns were taken (a triage's at its keypress), which the store's lock alone does not keep."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Turns:
    """Triage applies moves in the order the keys were pressed (the lock alone serialises
    them, but not in order)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._issued = 0
        self._serving = 0

    def take(self) -> int:
        with self._cond:
            self._issued += 1
            return self._issued - 1

    @contextmanager
    def turn(self, ticket: int) -> Iterator[None]:
        with self._cond:
            # a turn whose worker never ran (app exiting) must not wedge the rest
            self._cond.wait_for(lambda: self._serving >= ticket, timeout=30)
        try:
            yield
        finally:
            with self._cond:
                self._serving = max(self._serving, ticket + 1)
                self._cond.notify_all()
