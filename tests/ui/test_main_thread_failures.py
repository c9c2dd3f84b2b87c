"""The store is slow or fails while the browser's main thread would read it: the keys still
answer, and a failure is told in plain words, never a traceback.

The main thread reads the store nowhere: every read and write is a worker's, under the
guard of ui/workers.py. The poll that looks for other writers' changes every two seconds
was the last read it made itself, and a server that does not answer it (a table another
session locked for a migration, a network that dropped the packets) froze every key until
the server came back. The failure here is real: a second session of a real PostgreSQL
server holds the lock; the walk through the views traces the real SQLite connection.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from synapse_tui.ui.screens.calibration import CalibrationScreen
from synapse_tui.ui.screens.detail import DetailScreen
from synapse_tui.ui.screens.frequency import FrequencyScreen
from synapse_tui.ui.screens.help import HelpScreen
from synapse_tui.ui.screens.legend import LegendScreen
from synapse_tui.ui.screens.main import POLL_SECONDS, MainScreen
from synapse_tui.ui.screens.neighbours import NeighbourScreen
from synapse_tui.ui.screens.replaced import ReplacedScreen
from synapse_tui.ui.screens.session_log import SessionLogScreen
from synapse_tui.ui.screens.supersede import SupersedeScreen
from tests.ui.helpers import SIZE, make_app, palette_answered, record_notices, screen_text, select, settle

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


@contextmanager
def main_thread_reads(app) -> Iterator[list[str]]:
    """The statements the browser's own connection runs on the main thread (the keys'
    thread) while the block runs: SQLite calls the trace in the thread that runs one."""
    main = threading.main_thread()
    seen: list[str] = []

    def trace(sql: str) -> None:
        if threading.current_thread() is main:
            seen.append(sql)

    conn = app.store._conn  # noqa: SLF001 - the browser's real connection
    with app.browser.lock:
        conn.set_trace_callback(trace)
    try:
        yield seen
    finally:
        with app.browser.lock:
            conn.set_trace_callback(None)


async def _visit(pilot, key: str, screen: type, *then: str) -> None:
    await pilot.press(key)
    await settle(pilot)
    assert isinstance(pilot.app.screen, screen), (key, pilot.app.screen)
    if then:
        await pilot.press(*then)
        await settle(pilot)
    await pilot.press("escape")
    await settle(pilot)
    assert isinstance(pilot.app.screen, MainScreen), (key, pilot.app.screen)


async def _palette(pilot, command: str) -> None:
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*command)
    await palette_answered(pilot)
    await pilot.press("enter")
    await settle(pilot)


async def test_no_key_view_or_command_reads_the_store_on_the_main_thread(app, db):
    """What a person does in a session, traced: a store that waits or fails under any of
    it waits or fails in a worker, whose guard tells it; the keys' thread never does."""
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-pay-03")
        with main_thread_reads(app) as reads:
            await _visit(pilot, "enter", DetailScreen, "right_square_bracket")
            await _visit(pilot, "n", NeighbourScreen)
            await _visit(pilot, "l", SessionLogScreen)
            await _visit(pilot, "R", ReplacedScreen)
            await _visit(pilot, "F", FrequencyScreen)
            await _visit(pilot, "question_mark", HelpScreen)
            await _visit(pilot, "L", LegendScreen)
            await _visit(pilot, "s", SupersedeScreen, *"deploy")
            await pilot.press("2", "o", "1", "space", "u", "slash", *"payments", "enter")
            await settle(pilot)
            await select(pilot, "f-pay-03")
            await pilot.press("c")
            await settle(pilot)
            await pilot.press("ctrl+z")
            await settle(pilot)
            await _palette(pilot, "calibration: is the score")
            assert isinstance(app.screen, CalibrationScreen)
            await pilot.press("escape")
            await _palette(pilot, "as of another time")
            await pilot.press(*"-30d", "enter")
            await settle(pilot)
            assert app.as_of is not None
            await _palette(pilot, "back to now")
            assert app.as_of is None
            contradictions = int(app.memory.arrays.s[app.memory.index["f-pay-01"]])
            with sqlite3.connect(db) as other:  # another writer commits
                other.execute("UPDATE facts SET s = s + 1 WHERE id = 'f-pay-01'")
            app.poll_store()  # what the two-second timer does
            await settle(pilot)
            assert int(app.memory.arrays.s[app.memory.index["f-pay-01"]]) == contradictions + 1
        assert app.is_running
        assert [t for s, t in notices if s == "error"] == []
        assert reads == []
