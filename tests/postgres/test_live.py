"""Live change notices: a write on one connection reaches a listener on another within a
second, and a listener that lost its connection catches up from the change log."""

from __future__ import annotations

import time

import pytest

from synapse_tui.core.base.location import locate
from synapse_tui.core.store.postgres.live import Listener
from synapse_tui.core.store.postgres.server import open_server

pytestmark = pytest.mark.postgres

NEW_FACT = (
    "INSERT INTO facts (id, text, created_at, created_ts, r, s, events)"
    " VALUES (%s, 'a fact', '2026-01-01T00:00:00Z', 0, 0, 0, '\\x0000000000000000') RETURNING pos"
)


@pytest.fixture(scope="module")
def where(pg_url):
    where = locate(pg_url)
    open_server(where, create=True).close()
    return where


def write(where, sql: str, *args) -> int | None:
    with open_server(where) as conn:
        row = conn.execute(sql, args).fetchone() if "RETURNING" in sql else conn.execute(sql, args)
        conn.commit()
    return row[0] if isinstance(row, tuple) else None


def test_a_write_on_one_connection_is_seen_on_another_within_a_second(where):
    with Listener(where) as listener:
        assert listener.wait(0) is None  # connected, listening, nothing new
        pos = write(where, NEW_FACT, "live-1")
        start = time.monotonic()
        changes = listener.wait(5)
        elapsed = time.monotonic() - start
        assert changes is not None and changes.positions == (pos - 1,) and not changes.reload
        assert elapsed < 1.0
        write(where, "UPDATE facts SET r = r + 1 WHERE id = 'live-1'")
        assert listener.wait(5).positions == (pos - 1,)
        assert listener.wait(0.2) is None  # one transaction, one notice: nothing left over


def test_a_delete_asks_for_a_reload(where):
    pos = write(where, NEW_FACT, "live-2")
    with Listener(where) as listener:
        listener.wait(0)
        write(where, "DELETE FROM facts WHERE pos = %s", pos)
        changes = listener.wait(5)
    assert changes.positions == (pos - 1,) and changes.reload


def test_a_listener_that_lost_its_connection_catches_up_from_the_log(where, pg_server):
    import psycopg

    with Listener(where) as listener:
        listener.wait(0)
        pid = listener._conn.info.backend_pid
        with psycopg.connect(pg_server.get_uri(), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        # written while nobody listens: its notice reaches no one, its log entry stays
        pos = write(where, NEW_FACT, "live-3")
        changes = listener.wait(5)
        assert changes is not None and changes.positions == (pos - 1,)
        assert listener._conn.info.backend_pid != pid


def test_a_listener_started_from_an_entry_reads_everything_after_it(where):
    with Listener(where) as first:
        first.wait(0)
        seen = first.seq
    a = write(where, NEW_FACT, "live-4")
    b = write(where, NEW_FACT, "live-5")
    with Listener(where, after=seen) as later:
        changes = later.wait(0)
    assert changes.positions == (a - 1, b - 1) and not changes.reload


def test_writers_of_facts_take_turns_so_the_log_commits_in_order(where):
    """A listener that has read seq N must never meet a smaller one later: a second writer
    waits for the first to commit before its changes are numbered."""
    import psycopg

    with open_server(where) as first, open_server(where) as second:
        first.execute(NEW_FACT, ("turn-1",))
        second.execute("SET lock_timeout = '200ms'")
        with pytest.raises(psycopg.errors.LockNotAvailable):
            second.execute(NEW_FACT, ("turn-2",))
        second.rollback()
        first.commit()
        second.execute(NEW_FACT, ("turn-2",))
        second.commit()


def test_a_listener_the_log_was_pruned_past_is_told_to_reload(new_database):
    """The log keeps its newest CHANGE_LOG_KEEP entries, as on SQLite."""
    from synapse_tui.core.store.schema import CHANGE_LOG_KEEP

    where = locate(new_database())
    open_server(where, create=True).close()
    with Listener(where) as listener:
        listener.wait(0)
        write(
            where,
            "INSERT INTO facts (id, text, created_at, created_ts, r, s, events)"
            " SELECT 'bulk-' || i, 't', 't', 0, 0, 0, '\\x0000000000000000' FROM generate_series(1, %s) i",
            CHANGE_LOG_KEEP + 2048,
        )
        changes = listener.wait(5)
        with open_server(where) as conn:
            kept = conn.execute("SELECT count(*) FROM facts_changes").fetchone()[0]
    assert changes.reload and len(changes.positions) <= CHANGE_LOG_KEEP
    assert CHANGE_LOG_KEEP <= kept < CHANGE_LOG_KEEP + 1024
