"""Another writer's changes, as they land: LISTEN for the notice, then read the change log.

The log (facts_changes, the table SQLite's load cache already checks) is the source of
truth; the notice only wakes the listener. Every write that changes a fact, whoever makes
it (an import, a triage action, an agent's `remember`), logs the fact's position through
the store's triggers, and the log's own trigger NOTIFYs once per transaction at commit.
The audit needs no trigger of its own: each triage entry lands in the transaction that
changes its fact. A notice sent while the listener was disconnected is lost, so after
every (re)connect it reads the log from the last entry it saw: nothing is missed, and a
log pruned past that entry says so (`reload`), as the load cache treats it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import Location
from synapse_tui.core.store.api import Changes
from synapse_tui.core.store.postgres.connect import connect, driver
from synapse_tui.core.store.postgres.schema import CHANNEL

RETRY_S = (0.1, 0.5, 2.0)  # waits between reconnects: quick for a blip, then gentle on a server down


class Listener:
    """One connection of its own, LISTENing on the store's channel; `wait` returns the next
    changes (or None after `timeout` seconds without any). Not for sharing across threads:
    a browser runs it in one worker that posts what it returns."""

    def __init__(
        self, where: Location, after: int | None = None, dial: Callable[[], Any] | None = None
    ) -> None:
        """`dial`: opens its connection (connect.again: the store's server, its password);
        by default `connect`'s to `where`. Either way with our session settings (its
        lock_timeout: a catch-up read that waits on a lock is an error and a reconnect,
        not a listener stuck for ever)."""
        self.where = where
        self._dial = dial or (lambda: connect(where, autocommit=True))
        self.seq = after  # the newest log entry seen; None: start from now
        self._conn: Any = None
        self._schema: str | None = None
        self._failures = 0
        self._retry_at = 0.0  # after a failure, no reconnect before this (time.monotonic)

    @property
    def connected(self) -> bool:
        """Whether it is listening now (False before the first `wait`, and while the
        server is away: a caller that must not miss a change then checks for itself)."""
        return self._conn is not None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Listener:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait(self, timeout: float) -> Changes | None:
        """Block until another writer's change has landed, at most `timeout` seconds."""
        psycopg = driver()
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            left = deadline - now
            if self._conn is None and self._retry_at > now:  # a reconnect waits its turn
                time.sleep(max(0.0, min(left, self._retry_at - now)))
                if time.monotonic() >= deadline:
                    return None
                continue
            try:
                if self._conn is None:
                    self._connect()
                    if (caught := self._catch_up()) is not None:
                        return caught
                if left > 0:
                    for note in self._conn.notifies(timeout=left, stop_after=1):
                        if note.payload != self._schema:  # another store's, in the same database
                            continue
                if (caught := self._catch_up()) is not None:
                    return caught
            except (psycopg.OperationalError, StoreError):  # the server restarted, or is away
                self.close()
                self._failures += 1
                self._retry_at = time.monotonic() + RETRY_S[min(self._failures, len(RETRY_S)) - 1]
                continue
            if time.monotonic() >= deadline:
                return None

    def _connect(self) -> None:
        conn = self._dial()
        try:
            conn.execute(f"LISTEN {CHANNEL}")
            (self._schema,) = conn.execute("SELECT current_schema()").fetchone()
            if self.seq is None:
                (self.seq,) = conn.execute("SELECT coalesce(max(seq), 0) FROM facts_changes").fetchone()
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        self._failures = 0

    def _catch_up(self) -> Changes | None:
        """The log's entries after the last one seen, or None when there are none."""
        rows = self._conn.execute(
            "SELECT seq, pos, kind FROM facts_changes WHERE seq > %s ORDER BY seq", (self.seq,)
        ).fetchall()
        if not rows:
            return None
        reached = self._conn.execute("SELECT 1 FROM facts_changes WHERE seq = %s", (self.seq,)).fetchone()
        self.seq = rows[-1][0]
        reload = reached is None or any(kind not in ("i", "u") for _, _, kind in rows)
        return Changes(self.seq, tuple(sorted({pos - 1 for _, pos, kind in rows if kind != "s"})), reload)
