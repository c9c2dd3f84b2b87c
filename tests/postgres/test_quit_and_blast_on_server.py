"""The browser on a server when the server does not answer: quitting while a key's write
waits on another session's lock says so, and a second `q` leaves at once (the process
stayed for ever: a server lock has no timeout); a blast radius the server cannot read is
told as a failure, not as a graph not built."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from synapse_tui.ui.screens.supersede import SupersedeScreen
from tests.postgres.browsing import ui_store_on_server
from tests.postgres.sessions import server_gone
from tests.ui.helpers import SIZE, make_app, record_notices, screen_text, select, settle
from tests.ui.terminal import opened

pytestmark = pytest.mark.postgres


def facts_and_audit(url: str) -> tuple[dict[str, int], int]:
    with psycopg.connect(url) as conn:
        r = dict(conn.execute("SELECT id, r FROM facts").fetchall())
        return r, conn.execute("SELECT count(*) FROM audit").fetchone()[0]


def test_quit_while_a_write_waits_on_another_sessions_lock_leaves_at_once(tmp_path, new_database):
    _, url, _ = ui_store_on_server(tmp_path, new_database)
    before = facts_and_audit(url)
    term = opened(url)
    other = psycopg.connect(url)  # another session's lock, held throughout
    other.execute("LOCK TABLE facts IN ACCESS EXCLUSIVE MODE")
    try:
        term.press("c")  # the write waits for the lock: a server has no timeout for it
        term.read(0.5)
        term.press("q")
        term.read(15.0, until=b"Quitting once the store answers")  # a loaded machine is slow to draw it
        assert b"Quitting once the store answers" in term.output and term.status is None
        term.press("q")  # leave without it
        assert term.exited_within(5), "still running after q"
    finally:
        other.rollback()
        other.close()
        term.close()
    said = term.output.decode(errors="replace")
    assert "quit without waiting for the store" in said and "\n  Not saved: corroborate f-" in said
    assert facts_and_audit(url) == before  # the server rolled the write back: nothing of it


async def open_supersede_after_the_server_dropped_us(app, url: str) -> tuple[list[tuple[str, str]], str]:
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-dup-b")
        with server_gone(url):  # a session ended is opened again: here it cannot be
            await pilot.press("s")
            await settle(pilot)
        assert app.is_running and isinstance(app.screen, SupersedeScreen)
        return notices, screen_text(app)


def test_a_blast_radius_the_server_cannot_read_is_a_failure_not_a_graph_not_built(tmp_path, new_database):
    _, url, config = ui_store_on_server(tmp_path, new_database)
    app = make_app(url, config=config)
    try:
        notices, text = asyncio.run(open_supersede_after_the_server_dropped_us(app, url))
    finally:
        app.store.close()
    said = [t for s, t in notices if s == "error" and t.startswith("Could not find the candidates")]
    assert len(said) == 1 and "was lost, and connecting again failed" in said[0]
    assert "could not list the candidates" in text
    assert "built" not in text and not [t for _, t in notices if "built" in t]
