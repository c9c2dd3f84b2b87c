"""Quitting the browser while a key's write waits on the store never hangs the terminal,
and never drops a change unasked.

As a person runs it: `synapse-tui DB` in a terminal (a real pty), `c` on the first fact
while another program holds the SQLite file's write lock, then `q`. The write waits the
store's busy timeout (10 s) for the lock; before, the screen went and the process stayed
that long (for ever on a server lock). Now the browser says the store is busy: a second
`q` leaves at once and says what was not saved (the store as it was: the write was one
transaction, never begun); without it, the browser quits once the write has landed.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from synapse_tui.core.store.sqlite.store import BUSY_TIMEOUT_MS
from tests.ui.helpers import audit, build_store
from tests.ui.terminal import opened

BUSY = b"Quitting once the store answers"


def corroborations(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT id, r FROM facts"))


def one_more_corroboration(db: Path, before: dict[str, int]) -> bool:
    changed = {f: r for f, r in corroborations(db).items() if r != before[f]}
    return len(changed) == 1 and all(r == before[f] + 1 for f, r in changed.items())


def test_quit_twice_while_a_write_waits_for_another_programs_lock_leaves_at_once(tmp_path: Path) -> None:
    db = build_store(tmp_path)
    before = corroborations(db)
    term = opened(db)
    other = sqlite3.connect(db, isolation_level=None)  # another program's write, held throughout
    other.execute("BEGIN IMMEDIATE")
    try:
        term.press("c")  # the write waits for the lock (the busy timeout: 10 s)
        term.read(0.5)
        term.press("q")
        assert not term.exited_within(1.5)  # the write still waits: said, not dropped
        assert BUSY in term.output
        term.press("q")  # leave without it
        # gone at once, well before the store would have given up waiting
        assert term.exited_within(BUSY_TIMEOUT_MS / 1000 - 4), "still running after q"
    finally:
        other.execute("ROLLBACK")
        other.close()
        term.close()
    said = term.output.decode(errors="replace")
    assert "quit without waiting for the store" in said and "\n  Not saved: corroborate f-" in said
    assert "Error" not in said and "Traceback" not in said and "Worker" not in said  # no crash at exit
    assert term.status == 0
    # nothing half-written: the store is whole, and as it was before the key
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert corroborations(db) == before and audit(db) == []


def test_quit_once_while_a_write_waits_quits_when_it_has_landed(tmp_path: Path) -> None:
    db = build_store(tmp_path)
    before = corroborations(db)
    term = opened(db)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        term.press("c")
        term.read(0.5)
        term.press("q")
        term.read(1.0)
        assert BUSY in term.output and term.status is None
        other.execute("ROLLBACK")  # the other program is done: the write takes the lock
        assert term.exited_within(5)
    finally:
        other.close()
        term.close()
    assert term.status == 0 and b"quit without waiting" not in term.output
    assert [e["action"] for e in audit(db)] == ["corroborate"] and one_more_corroboration(db, before)


def test_quit_right_after_a_write_that_is_not_waiting_keeps_it(tmp_path: Path) -> None:
    db = build_store(tmp_path)
    before = corroborations(db)
    term = opened(db)
    try:
        term.press("c")
        term.press("q")
        assert term.exited_within(5)
    finally:
        term.close()
    assert term.status == 0 and b"quit without waiting" not in term.output and b"Error" not in term.output
    assert [e["action"] for e in audit(db)] == ["corroborate"] and one_more_corroboration(db, before)
