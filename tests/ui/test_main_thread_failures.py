"""The store is slow or fails while the browser's main thread would read it: the keys still
answer, and a failure is told in plain words, never a traceback.

The main thread reads the store nowhere but through a worker (ui/workers.py): the poll
that looks for other writers' changes every two seconds was the last read it made itself,
and a server that does not answer it (a table another session locked for a migration,
a network that dropped the packets) froze every key until the server came back. Each
failure here is real: a second session of a real PostgreSQL server holds the lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from synapse_tui.ui.screens.main import POLL_SECONDS
from tests.ui.helpers import SIZE, make_app, record_notices, screen_text, settle

HOLD_S = 20.0  # the lock goes after this, however the browser behaves: a frozen one cannot hang the test


@contextmanager
def table_locked(url: str, table: str) -> Iterator[threading.Event]:
    """Another session holds `table` in ACCESS EXCLUSIVE mode (what a migration, or a
    VACUUM FULL, takes): every read of it waits until the block ends. The session runs in
    a thread of its own; the event it yields is set once the lock is gone."""
    import psycopg

    locked, release, released = threading.Event(), threading.Event(), threading.Event()

    def hold() -> None:
        with psycopg.connect(url) as conn:
            conn.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
            locked.set()
            release.wait(HOLD_S)
            conn.rollback()
        released.set()

    holder = threading.Thread(target=hold, name="table-lock", daemon=True)
    holder.start()
    assert locked.wait(10), "the second session did not get the lock"
    try:
        yield released
    finally:
        release.set()
        holder.join(HOLD_S)


@pytest.mark.postgres
def test_a_poll_the_server_does_not_answer_leaves_the_keys_answering(tmp_path, new_database):
    import asyncio

    from tests.postgres.browsing import ui_store_on_server

    _, url, config = ui_store_on_server(tmp_path, new_database)
    app = make_app(url, config=config)

    async def run() -> None:
        async with app.run_test(size=SIZE) as pilot:
            notices = record_notices(app)
            await settle(pilot)
            assert "All" in screen_text(app)
            with table_locked(url, "audit") as released:  # the poll's check reads the audit
                await pilot.pause(POLL_SECONDS + 1)  # a poll comes due while the lock is held
                await pilot.press("2")  # the Stale queue
                await pilot.pause(0.2)
                # the key was answered while the server still held the lock
                assert not released.is_set()
                assert app.browser.view.queue == 1
                assert " Stale · " in screen_text(app)
            await settle(pilot)
            assert app.is_running
            assert [t for s, t in notices if s == "error"] == []  # a wait is not a failure

    try:
        asyncio.run(run())
    finally:
        app.store.close()
