"""A store file changed under a command by another program (a column or table renamed, its
write lock held past the busy timeout, its disk full): every command and every MCP tool says
so in one line naming the file, in the words a server's store uses for the same state
(tests/postgres/test_store_state_on_server.py), exits non-zero and writes nothing. Real
files, changed by a second real connection."""

from __future__ import annotations

import contextlib
import sqlite3
import sys
from pathlib import Path

import pytest

import synapse_tui.core.store.sqlite.store as sqlite_store
from tests.disk_full import fill, small_disk
from tests.helpers import base_facts, run, write_jsonl
from tests.postgres.mcp_serving import serve

# The MCP client binds its server's stderr when first imported: imported here, not first
# inside CliRunner, whose stderr has no file number
with contextlib.suppress(ImportError):
    import mcp.client.stdio  # noqa: F401


def by_hand(db: Path, said: str, *, writing: bool = False) -> str:
    what = "table" if said.startswith("no such table") else "column"
    nothing = "; nothing was written" if writing else ""
    return f"{db}: the store could not be read or written ({said}: a {what} renamed or dropped by hand?){nothing}"


def change(db: Path, sql: str) -> None:
    """Another program's change to the file."""
    with sqlite3.connect(db, isolation_level=None) as other:
        other.execute(sql)


def content(db: Path) -> list[str]:
    """Every row of every table, as SQL (the file's bytes may change on a checkpoint alone)."""
    conn = sqlite3.connect(db)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def exports(db: Path) -> tuple[str, str]:
    return run("export", db).stdout, run("export", db, "--audit").stdout


def test_a_column_renamed_under_a_read_is_one_line_naming_the_file(db):
    change(db, "ALTER TABLE facts RENAME COLUMN note TO note_old")
    for command in (("show", "a"), ("export",), ("suggest", "--json")):
        got = run(command[0], db, *command[1:], ok=False)
        assert got.exit_code == 2, command
        assert got.stderr == f"error: {by_hand(db, 'no such column: note')}\n", command
    change(db, "ALTER TABLE facts RENAME COLUMN note_old TO note")
    run("export", db)


def test_a_column_renamed_under_a_write_says_nothing_was_written(db):
    run("accept", db, "e")  # something to undo
    change(db, "ALTER TABLE audit RENAME COLUMN actor TO actor_old")
    before = content(db)
    for command, said in (
        (("corroborate", "e"), "table audit has no column named actor"),
        (("supersede", "c", "d"), "table audit has no column named actor"),
        (("undo",), "no such column: actor"),
    ):
        got = run(command[0], db, *command[1:], ok=False)
        assert got.exit_code == 2, command
        assert got.stderr == f"error: {by_hand(db, said, writing=True)}\n", command
        assert content(db) == before, command
    change(db, "ALTER TABLE audit RENAME COLUMN actor_old TO actor")


def test_a_write_lock_held_past_the_busy_timeout_is_a_busy_notice(db, monkeypatch):
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT_MS", 200)  # 10 s in use
    before = exports(db)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program's write, not yet committed
    try:
        for command in (("corroborate", "e"), ("supersede", "c", "d")):
            got = run(command[0], db, *command[1:], ok=False)
            assert got.exit_code == 2, command
            assert got.stderr == (
                f"error: {db}: the store is busy: another session held the store's write lock"
                " for more than 200ms; nothing was written\n"
            ), command
        assert run("export", db).stdout == before[0]  # a read does not wait for a writer (WAL)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert exports(db) == before


def test_a_store_another_program_holds_exclusively_is_busy_at_open_not_corrupt(db, monkeypatch):
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT_MS", 200)
    before = exports(db)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("PRAGMA locking_mode = EXCLUSIVE")  # held from its first write until it closes
    other.execute("BEGIN EXCLUSIVE")
    other.execute("UPDATE facts SET note = note")
    try:
        for command in (("export",), ("corroborate", "e")):
            got = run(command[0], db, *command[1:], ok=False)
            assert got.exit_code == 2, command
            assert got.stderr == (
                f"error: {db}: the store is busy: another session held the store's write lock for more than 200ms\n"
            ), command
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert exports(db) == before


def test_an_import_that_fills_the_disk_says_so_and_nothing_of_it_lands(tmp_path):
    many = [
        {
            "id": f"n{i}",
            "text": f"note {i} " + "words of a long fact " * 40,
            "created_at": "2026-10-01T00:00:00Z",
        }
        for i in range(400)
    ]
    src = write_jsonl(tmp_path / "many.jsonl", many)
    with small_disk(tmp_path / "disk") as disk:
        db = disk / "memory.db"
        run("import", write_jsonl(tmp_path / "facts.jsonl", base_facts()), "--db", db, ok=False)
        run("export", db)  # the -wal and -shm files are there before the disk fills
        before = exports(db)
        fill(disk, leave=16 * 4096)
        got = run("import", src, "--db", db, ok=False)
        assert got.exit_code == 2
        assert got.stderr == (
            f"error: {db}: the store could not be read or written (database or disk is full); nothing was written\n"
        )
        (disk / "filler").unlink()
        assert exports(db) == before


# -- an MCP server's store changed under it --------------------------------------------------


def test_an_mcp_tool_on_a_table_renamed_under_the_server_is_one_line_tool_error(db, monkeypatch):
    pytest.importorskip("mcp")
    monkeypatch.setattr(sys, "stderr", sys.__stderr__)  # the server's stderr: a real file

    async def scenario(session):
        got = {"first": await session.call_tool("show", {"id": "a"})}  # the store is open
        change(db, "ALTER TABLE audit RENAME TO audit_elsewhere")
        got["corroborate"] = await session.call_tool("corroborate", {"id": "e"})
        got["show"] = await session.call_tool("show", {"id": "a"})
        change(db, "ALTER TABLE audit_elsewhere RENAME TO audit")
        return {name: (result.is_error, result.content[0].text) for name, result in got.items()}

    before = exports(db)
    got = serve(db, None, scenario)
    assert got["first"][0] is False
    gone = "memory.db: the store could not be read or written (no such table: audit: a table renamed or dropped by hand?)"
    assert got["corroborate"] == (True, f"Error executing tool corroborate: {gone}")
    assert got["show"] == (True, f"Error executing tool show: {gone}")
    assert exports(db) == before
