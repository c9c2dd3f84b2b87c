"""The store fails under a background worker: the browser keeps running and says so.

Each failure is real: another program holds the SQLite file's write lock, the store's
folder is removed, the table a read needs is gone. The browser must not end with a
traceback; a notice names what failed and why, the view that was loading says it did not
load, and a triage write that failed is "Not saved": the store, the audit log, the list
and the undo stack stay as they were before the key.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from synapse_tui.ui.screens.detail import DetailScreen
from synapse_tui.ui.screens.neighbours import NeighbourScreen
from synapse_tui.ui.screens.replaced import ReplacedScreen
from tests.helpers import write_jsonl
from tests.ui.helpers import (
    SIZE,
    audit,
    db_row,
    errors,
    make_app,
    palette_answered,
    record_notices,
    row_of,
    screen_text,
    select,
    settle,
    trust,
)


@contextmanager
def write_lock_held(app, db: Path) -> Iterator[None]:
    """Another program holds the file's write lock (an open write transaction of a second
    real connection) while the block runs. The browser waits its busy timeout before it
    gives up; set to 0.3 s here (10 s in use) so the test does not wait that long."""
    with app.browser.lock:
        app.store._conn.execute("PRAGMA busy_timeout = 300")  # noqa: SLF001 - the real connection
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


def busy(db: Path) -> str:
    """What a write the held lock turned away says: the store's state, in the server's words."""
    return f"{db}: the store is busy: another session held the store's write lock for more than 300ms; nothing was written"


async def test_a_locked_store_under_a_triage_key_is_not_saved_and_nothing_shows_done(app, db):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-pay-03")
        before = (trust(app, "f-pay-03"), row_of(app, "f-pay-03"), db_row(db, "f-pay-03"), audit(db))
        with write_lock_held(app, db):
            await pilot.press("c")
            await settle(pilot)
            assert app.is_running
            said = errors(notices)
            assert said == [f"Not saved: corroborate f-pay-03: {busy(db)}"]
            # nothing shown as done: the row, its trust, the store and the audit log as before
            assert (trust(app, "f-pay-03"), row_of(app, "f-pay-03")) == before[:2]
            assert not [t for s, t in notices if s == "information" and t.startswith("corroborate")]
        with Store.open(db, readonly=True) as store:
            assert store.record("f-pay-03").corroborations == before[2]["r"]
        assert db_row(db, "f-pay-03") == before[2] and audit(db) == before[3]
        await pilot.press("ctrl+z")  # the undo stack did not take the failed write
        await settle(pilot)
        assert audit(db) == before[3]
        # the fact was released: once the lock is gone, the same key saves it
        await pilot.press("c")
        await settle(pilot)
        assert db_row(db, "f-pay-03")["r"] == before[2]["r"] + 1
        assert [e["action"] for e in audit(db)] == [*(e["action"] for e in before[3]), "corroborate"]


def _replaced_store(tmp_path: Path) -> Path:
    facts = [
        {"id": "a1", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
        {
            "id": "a2",
            "text": "deploys run on Tuesdays since March",
            "created_at": "2025-03-05T00:00:00Z",
            "note": "ops",
        },
    ]
    src = write_jsonl(tmp_path / "f.jsonl", facts)
    db = tmp_path / "memory.db"
    (tmp_path / "memory.synapse.toml").write_text("")
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    return db


async def _open_replaced_queue(app, pilot) -> list[tuple[str, str]]:
    """The notices from here on, with the Replaced? queue open (`R`)."""
    notices = record_notices(app)
    await settle(pilot)
    await pilot.press("R")
    await settle(pilot)
    return notices


async def test_an_accept_in_the_replaced_queue_on_a_locked_store_is_not_saved(tmp_path):
    db = _replaced_store(tmp_path)
    app = make_app(db)
    try:
        async with app.run_test(size=SIZE) as pilot:
            notices = await _open_replaced_queue(app, pilot)
            assert isinstance(app.screen, ReplacedScreen) and "a1 → a2" in screen_text(app)
            with write_lock_held(app, db):
                await pilot.press("y")
                await settle(pilot)
                assert app.is_running
                said = errors(notices)
                assert said == [f"Not saved: supersede a1 -> a2: {busy(db)}"]
                assert "a1 → a2" in screen_text(app)  # still suggested: nothing was accepted
            with Store.open(db, readonly=True) as store:
                assert store.record("a2").supersedes is None
            assert audit(db) == []
    finally:
        app.store.close()


async def test_a_dismiss_in_the_replaced_queue_on_a_locked_store_is_not_saved(tmp_path):
    db = _replaced_store(tmp_path)
    app = make_app(db)
    try:
        async with app.run_test(size=SIZE) as pilot:
            notices = await _open_replaced_queue(app, pilot)
            with write_lock_held(app, db):
                await pilot.press("d")
                await settle(pilot)
                assert app.is_running
                said = errors(notices)
                assert len(said) == 1
                assert said[0] == (f"Not saved: dismiss a1 by a2: {busy(db)}")
                assert "a1 → a2" in screen_text(app)  # still suggested
            assert audit(db) == []
    finally:
        app.store.close()


async def test_a_write_the_store_fails_in_the_middle_of_is_not_saved(app, db):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-pay-03")
        before = (trust(app, "f-pay-03"), row_of(app, "f-pay-03"), db_row(db, "f-pay-03"))
        with sqlite3.connect(db, isolation_level=None) as other:  # another program's change
            other.execute("ALTER TABLE audit RENAME TO audit_elsewhere")
        await pilot.press("x")
        await settle(pilot)
        assert app.is_running
        said = [t for t in errors(notices) if t.startswith("Not saved")]
        assert said == [
            f"Not saved: contradict f-pay-03: {db}: the store could not be read or written"
            " (no such table: audit: a table renamed or dropped by hand?); nothing was written"
        ]
        assert (trust(app, "f-pay-03"), row_of(app, "f-pay-03")) == before[:2]
        assert db_row(db, "f-pay-03") == before[2]  # rolled back: the fact's s is as it was


async def test_a_store_whose_folder_was_removed_is_said_to_be_gone_by_the_sync(app, db):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        shutil.rmtree(db.parent)  # the browser's open file lives on; the store is gone
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"sync sources")
        await palette_answered(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.is_running
        said = errors(notices)
        assert len(said) == 1
        assert said[0].startswith(f"Could not sync the sources: the store at {db} can no longer be read")


async def test_a_read_the_store_fails_under_shows_not_loaded_in_the_detail_view(app, db):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-pay-02")
        with sqlite3.connect(db, isolation_level=None) as other:  # another program's change
            other.execute("ALTER TABLE facts RENAME TO facts_elsewhere")
        await pilot.press("enter")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, DetailScreen)
        said = [t for t in errors(notices) if t.startswith("Could not load the fact")]
        assert said == [
            f"Could not load the fact: {db}: the store could not be read or written"
            " (no such table: facts: a table renamed or dropped by hand?)"
        ]
        assert "f-pay-02: not " in screen_text(
            app
        )  # not loaded (the line runs past the screen), not an endless wait


async def test_a_bug_in_a_worker_is_told_in_one_line_and_the_browser_goes_on(app, db):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-pay-01")

        def broken(fact_id: str):  # a programming error, not the store's
            raise ZeroDivisionError("division by zero")

        app.browser.neighbourhood = broken
        await pilot.press("n")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, NeighbourScreen)
        said = errors(notices)
        assert said == [
            "Could not load the neighbours: internal error, please report it"
            " (ZeroDivisionError: division by zero)"
        ]
        assert "could not be read" in screen_text(app)


def test_every_worker_of_the_browser_is_started_under_the_guard():
    """A worker started around ui/workers.py would end the browser with a traceback again."""
    ui = Path(__file__).parents[2] / "synapse_tui" / "ui"
    bypass = [
        f"{path.relative_to(ui)}:{n}"
        for path in sorted(ui.rglob("*.py"))
        if path.name != "workers.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "@work" in line or "run_worker(" in line
    ]
    assert bypass == []
