"""Quitting the browser while a key's write waits on the store: the process ends at once,
not when the store gives up waiting (or never, on a server lock with no timeout).

As a person runs it: `synapse-tui DB` in a terminal (a real pty), `c` on the first fact
while another program holds the SQLite file's write lock, then `q`. The write waits the
store's busy timeout (10 s) for the lock; before, the process stayed that long after the
screen had gone. Now it leaves after a short grace, says what was not saved, and the store
is as it was: the write was one transaction, never begun. A write that is not waiting
still lands before the process ends.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import sqlite3
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

from synapse_tui.core.store.sqlite.store import BUSY_TIMEOUT_MS
from tests.ui.helpers import audit, build_store

ROOT = Path(__file__).parents[2]
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pty")


class Terminal:
    """`synapse-tui DB` in a pty, read as it writes."""

    def __init__(self, db: Path) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the browser, on this checkout, in a 120 x 40 terminal
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
            os.environ.update(PYTHONPATH=str(ROOT), COLUMNS="120", LINES="40")  # pytest's say 80
            os.chdir(ROOT)  # `-m` imports from the working folder first
            os.execv(sys.executable, [sys.executable, "-m", "synapse_tui", str(db)])
        self.output = b""
        self.status: int | None = None

    def read(self, seconds: float, until: bytes | None = None) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not (until and until in self.output):
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    self.output += os.read(self.fd, 65536)
                except OSError:  # the child has gone
                    return

    def press(self, key: str) -> None:
        os.write(self.fd, key.encode())

    def exited_within(self, seconds: float) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.read(0.05)
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.status = os.waitstatus_to_exitcode(status)
                self.read(0.2)
                return True
        return False

    def kill(self) -> None:
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def opened(db: Path) -> Terminal:
    term = Terminal(db)
    term.read(30, until=b"Disputed")  # the list is up
    assert b"Disputed" in term.output, term.output[-500:]
    term.read(1.0)  # the first loads settle
    return term


def corroborations(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT id, r FROM facts"))


def test_quit_while_a_write_waits_for_another_programs_lock_leaves_at_once(tmp_path: Path) -> None:
    db = build_store(tmp_path)
    before = corroborations(db)
    term = opened(db)
    other = sqlite3.connect(db, isolation_level=None)  # another program's write, held throughout
    other.execute("BEGIN IMMEDIATE")
    try:
        term.press("c")  # the write waits for the lock (the busy timeout: 10 s)
        term.read(0.5)
        term.press("q")
        # gone well before the store would have given up waiting
        assert term.exited_within(BUSY_TIMEOUT_MS / 1000 - 2), "still running after q"
    finally:
        other.execute("ROLLBACK")
        other.close()
        term.kill()
    said = term.output.decode(errors="replace")
    assert "quit without waiting for the store" in said and "\n  Not saved: corroborate f-" in said
    assert "Error" not in said and "Traceback" not in said and "Worker" not in said  # no crash at exit
    assert term.status == 0
    # nothing half-written: the store is whole, and as it was before the key
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert corroborations(db) == before and audit(db) == []


def test_quit_right_after_a_write_that_is_not_waiting_keeps_it(tmp_path: Path) -> None:
    db = build_store(tmp_path)
    before = corroborations(db)
    term = opened(db)
    try:
        term.press("c")
        term.press("q")
        assert term.exited_within(BUSY_TIMEOUT_MS / 1000 - 2)
    finally:
        term.kill()
    assert term.status == 0 and b"quit without waiting" not in term.output and b"Error" not in term.output
    assert [e["action"] for e in audit(db)] == ["corroborate"]
    changed = {f: r for f, r in corroborations(db).items() if r != before[f]}
    assert len(changed) == 1 and next(iter(changed.values())) == 1 + before[next(iter(changed))]
