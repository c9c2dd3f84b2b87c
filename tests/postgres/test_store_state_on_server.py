"""A store on a server that is not as synapse-tui made it (a table or column renamed by hand),
or that another session holds a lock on: every command, the browser and the MCP server say so
in one line naming the store, exit non-zero and change nothing; a lock held by another session
is waited on for lock_timeout, not for ever. Two real connections on a real server."""

from __future__ import annotations

import contextlib
import sqlite3

import psycopg
import pytest

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import locate
from synapse_tui.core.store.db import Store
from tests.helpers import NOW, run

pytestmark = pytest.mark.postgres

# The MCP client binds its server's stderr (`sys.stderr`) when first imported: imported here,
# not first by the `mcp` command run below inside CliRunner, whose stderr has no file number
with contextlib.suppress(ImportError):
    import mcp.client.stdio  # noqa: F401

# every command that opens the store, the browser's and the MCP server's included
COMMANDS = [
    ("score",),
    ("show", "a"),
    ("export",),
    ("export", "--audit"),
    ("calibrate",),
    ("edges",),
    ("neighbours", "a"),
    ("suggest", "--json"),
    ("accept", "e"),
    ("corroborate", "e"),
    ("supersede", "c", "d"),
    ("undo",),
    ("dismiss", "a"),
    ("open",),
    ("mcp",),
]


@pytest.fixture
def pair(db, new_database):
    url = new_database()
    run("copy", db, url)
    return db, url


def exports(where) -> tuple[str, str]:
    return run("export", where).stdout, run("export", where, "--audit").stdout


def admin(url: str, sql: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


def test_a_renamed_table_is_one_line_naming_the_store_on_either_backend(pair):
    file, url = pair
    before = exports(file), exports(url)
    admin(url, "ALTER TABLE facts RENAME TO facts_old")
    with sqlite3.connect(file) as conn:
        conn.execute("ALTER TABLE facts RENAME TO facts_old")
    shown = locate(url).shown
    for command in COMMANDS:
        on_file = run(command[0], file, *command[1:], ok=False)
        on_server = run(command[0], url, *command[1:], ok=False)
        said = "a synapse-tui store without its table facts (renamed or dropped by hand?); nothing was read or changed"
        assert on_server.exit_code == on_file.exit_code == 2, command
        assert on_server.stderr == f"error: {shown}: {said}\n", command
        assert on_file.stderr == f"error: {file}: {said}\n", command
    admin(url, "ALTER TABLE facts_old RENAME TO facts")
    with sqlite3.connect(file) as conn:
        conn.execute("ALTER TABLE facts_old RENAME TO facts")
    assert (exports(file), exports(url)) == before


def test_a_column_renamed_under_a_command_is_one_line_naming_the_store(pair):
    _, url = pair
    before = exports(url)
    admin(url, "ALTER TABLE facts RENAME COLUMN note TO note_old")
    shown = locate(url).shown
    for command in (("export",), ("show", "a")):
        got = run(command[0], url, *command[1:], ok=False)
        assert got.exit_code == 2, command
        assert got.stderr == (
            f'error: {shown}: the store could not be read or written (column "note" does not exist:'
            " a column renamed or dropped by hand?)\n"
        ), command
    admin(url, "ALTER TABLE facts RENAME COLUMN note_old TO note")
    assert exports(url) == before


def test_a_table_dropped_under_an_open_store_is_one_line(pair):
    """The browser's and the MCP server's store stays open: a table renamed after it opened
    is one StoreError naming the store, not an internal error."""
    _, url = pair
    with Store.open(url) as store:
        admin(url, "ALTER TABLE audit RENAME TO audit_old")
        with pytest.raises(StoreError) as caught:
            with store.snapshot():
                list(store.audit.entries())
    admin(url, "ALTER TABLE audit_old RENAME TO audit")
    said = str(caught.value)
    assert said.startswith(f"{locate(url).shown}: the store could not be read or written (relation")
    assert "renamed or dropped by hand?" in said and len(said.splitlines()) == 1


# -- a lock another session holds --------------------------------------------------------


def with_lock_timeout(url: str, ms: int) -> str:
    return f"{url}&options=-c%20lock_timeout%3D{ms}"


def test_a_store_s_connection_waits_ten_seconds_for_a_lock_unless_told_otherwise(pair):
    _, url = pair
    with Store.open(url) as store:
        assert store._conn.run("SHOW lock_timeout").fetchone() == ("10s",)
    with Store.open(with_lock_timeout(url, 250)) as store:  # the location's own is kept
        assert store._conn.run("SHOW lock_timeout").fetchone() == ("250ms",)


def test_a_row_another_session_holds_is_a_busy_notice_and_nothing_is_written(pair):
    _, url = pair
    before = exports(url)
    with psycopg.connect(url, autocommit=True, application_name="psql") as other:
        other.execute("BEGIN")
        other.execute("SELECT * FROM facts WHERE id = 'e' FOR UPDATE")
        (pid,) = other.execute("SELECT pg_backend_pid()").fetchone()
        busy = with_lock_timeout(url, 300)
        got = run("corroborate", busy, "e", "--now", NOW, ok=False)
        other.execute("ROLLBACK")
    assert got.exit_code == 2
    assert got.stderr.startswith(
        f"error: {locate(busy).shown}: the store is busy: another session (pid {pid}, psql as postgres,"
        " idle in transaction since "
    )
    assert got.stderr.endswith(" UTC) has held a row of facts for more than 300ms; nothing was written\n")
    assert exports(url) == before
    run("corroborate", url, "e", "--now", NOW)  # the lock released: the action lands
    assert exports(url) != before


def test_the_store_s_lock_held_by_another_writer_is_a_busy_notice(pair):
    """An import or a copy holds the store's advisory lock for its whole transaction: a
    triage action gives up after lock_timeout, naming the session, and writes nothing."""
    _, url = pair
    before = exports(url)
    busy = with_lock_timeout(url, 300)
    with Store.open(url) as other, other.transaction():
        (pid,) = other._conn.run("SELECT pg_backend_pid()").fetchone()
        got = run("verify", busy, "b", "--now", NOW, ok=False)
    assert got.exit_code == 2
    assert got.stderr.startswith(
        f"error: {locate(busy).shown}: the store is busy: another session (pid {pid}, synapse-tui as postgres,"
    )
    assert "has held the store's write lock, or one of its tables for more than 300ms" in got.stderr
    assert got.stderr.endswith("; nothing was written\n") and len(got.stderr.splitlines()) == 1
    assert exports(url) == before


async def corroborate_a_locked_row(app, url: str) -> tuple[list[tuple[str, str]], bool, int]:
    from tests.ui.helpers import SIZE, record_notices, select, settle

    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-pay-03")
        with psycopg.connect(url, autocommit=True, application_name="psql") as other:
            other.execute("BEGIN")
            other.execute("SELECT * FROM facts WHERE id = 'f-pay-03' FOR UPDATE")
            (pid,) = other.execute("SELECT pg_backend_pid()").fetchone()
            await pilot.press("c")
            await settle(pilot)
            for _ in range(40):  # the notice comes after lock_timeout (300 ms), not never
                if any(severity == "error" for severity, _ in notices):
                    break
                await pilot.pause(0.1)
            other.execute("ROLLBACK")
        return notices, app.is_running, pid


def test_a_triage_key_on_a_locked_row_says_the_store_is_busy_and_the_browser_goes_on(tmp_path, new_database):
    import asyncio

    from tests.postgres.browsing import ui_store_on_server
    from tests.ui.helpers import errors as error_notices
    from tests.ui.helpers import make_app

    _, url, config = ui_store_on_server(tmp_path, new_database)
    with Store.open(url) as store:
        before = store.record("f-pay-03").corroborations
    busy = with_lock_timeout(url, 300)
    app = make_app(busy, config=config)
    try:
        notices, running, pid = asyncio.run(corroborate_a_locked_row(app, url))
    finally:
        app.store.close()
    assert running
    errors = error_notices(notices)
    assert len(errors) == 1
    assert errors[0].startswith(
        f"Not saved: corroborate f-pay-03: {locate(busy).shown}: the store is busy: another session"
        f" (pid {pid}, psql as postgres,"
    )
    assert errors[0].endswith(" UTC) has held a row of facts for more than 300ms; nothing was written")
    with Store.open(url) as store:
        assert store.record("f-pay-03").corroborations == before


def test_an_mcp_tool_on_a_locked_row_is_a_busy_tool_error(pair, monkeypatch):
    pytest.importorskip("mcp")
    import sys

    monkeypatch.setattr(
        sys, "stderr", sys.__stderr__
    )  # the server's stderr: a real file, whatever ran before
    from tests.postgres.mcp_serving import serve

    file, url = pair
    before = exports(url)
    busy = with_lock_timeout(url, 300)

    async def corroborate(session):
        with psycopg.connect(url, autocommit=True, application_name="psql") as other:
            other.execute("BEGIN")
            other.execute("SELECT * FROM facts WHERE id = 'e' FOR UPDATE")
            got = await session.call_tool("corroborate", {"id": "e"})
            other.execute("ROLLBACK")
        return got.is_error, got.content[0].text

    error, text = serve(busy, file.with_name("memory.synapse.toml"), corroborate)
    assert error and "the store is busy: another session (pid " in text
    assert text.endswith(" has held a row of facts for more than 300ms; nothing was written")
    assert len(text.splitlines()) == 1
    assert exports(url) == before


def test_a_server_that_takes_no_writes_and_a_statement_timeout_are_one_line(pair):
    _, url = pair
    before = exports(url)
    database = url.split("?")[0].rsplit("/", 1)[1]
    admin(url, f'ALTER DATABASE "{database}" SET default_transaction_read_only = on')
    try:
        got = run("corroborate", url, "e", "--now", NOW, ok=False)
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET default_transaction_read_only = off")
            conn.execute(f'ALTER DATABASE "{database}" RESET default_transaction_read_only')
    assert got.exit_code == 2
    assert got.stderr == (
        f"error: {locate(url).shown}: the server takes no writes here (cannot execute UPDATE in a"
        " read-only transaction: a standby, or a read-only default); nothing was written\n"
    )
    timed = f"{url}&options=-c%20statement_timeout%3D1"
    got = run("score", timed, ok=False)
    assert got.exit_code == 2 and len(got.stderr.splitlines()) == 1
    assert (
        got.stderr.startswith("error: ")
        and f"{locate(timed).shown}: the server cancelled the statement" in got.stderr
    )
    # the server words a timeout this short "due to statement timeout", or under load (the
    # timeout landing while the backend handles the client's message) "due to user request"
    assert "canceling statement due to" in got.stderr
    assert ": the server's or the role's statement_timeout, or a person's pg_cancel_backend)" in got.stderr
    assert exports(url) == before


def test_a_login_refused_a_table_is_one_line_naming_the_store(pair):
    _, url = pair
    admin(url, "DROP ROLE IF EXISTS state_peek")
    admin(url, "CREATE ROLE state_peek LOGIN")
    admin(url, "GRANT USAGE ON SCHEMA public TO state_peek")
    admin(url, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO state_peek")
    admin(url, "REVOKE SELECT ON facts FROM state_peek")
    peek = url.replace("postgres:@", "state_peek@")
    got = run("score", peek, ok=False)
    assert got.exit_code == 2
    assert got.stderr == (
        f"error: {locate(peek).shown}: the server refused this login: permission denied for table facts\n"
    )


def test_a_server_s_error_outside_a_store_s_connection_is_not_called_a_bug(pair):
    """What a command reports of a driver error no store connection named: the file's words
    for a missing table, exit 2; a statement of ours the server cannot parse stays our bug."""
    from synapse_tui.cli.common import describe_error

    _, url = pair
    with psycopg.connect(url, autocommit=True) as conn:
        with pytest.raises(psycopg.Error) as missing:
            conn.execute("SELECT * FROM facts_renamed")
        with pytest.raises(psycopg.Error) as ours:
            conn.execute("SELEC 1")
    assert describe_error(missing.value) == (
        'the database could not be read or written (relation "facts_renamed" does not exist)',
        2,
    )
    assert describe_error(ours.value)[1] == 1
