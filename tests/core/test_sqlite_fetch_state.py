"""A store file damaged where only reading its rows reaches (a page another program overwrote
past the first rows of a table; a bad sector there, which SQLite on Linux reports the same
way): the error comes while the rows are fetched, not when the statement runs, and is told
in one line naming the file, in every command (exit 2), in MCP and in the library, as a
statement's own errors are (tests/cli/test_sqlite_store_state.py).

Also SQLite's own read-only refusal, reached for real as root: the store's -wal file made
immutable (chattr +i) while another program holds the store open, so SQLite opens the WAL
read-only though the store file and its folder can be written; and the store file itself
immutable, which the store finds before SQLite is asked (chmod 0444 stops no write of root's)."""

from __future__ import annotations

import contextlib
import sqlite3
import sys
from pathlib import Path

import pytest

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.store.db import Store
from tests.helpers import run, write_jsonl
from tests.postgres.mcp_serving import serve
from tests.sqlite_files import (
    CURE,
    bad_sectors_from,
    content,
    damage,
    immutable,
    leaves,
    many_facts,
    overwrite,
    read_only_wal,
)

# The MCP client binds its server's stderr when first imported: imported here, not first
# inside CliRunner, whose stderr has no file number
with contextlib.suppress(ImportError):
    import mcp.client.stdio  # noqa: F401


@pytest.fixture
def damaged_store(tmp_path: Path) -> Path:
    """`many_facts` with its facts table's last leaf page overwritten: the file opens, and the
    first rows of a read of every fact come, then the read reaches the damage."""
    db = many_facts(tmp_path)
    pages = leaves(db)
    assert len(pages) > 10
    overwrite(db, pages[-1])
    return db


# -- the library: a cursor's rows ----------------------------------------------------------


@pytest.mark.parametrize(
    "read",
    [
        lambda cur: cur.fetchall(),
        lambda cur: list(cur),
        lambda cur: [row for rows in iter(lambda: cur.fetchmany(50), []) for row in rows],
        lambda cur: [row for row in iter(cur.fetchone, None)],
        lambda cur: [next(cur) for _ in range(10_000)],
    ],
    ids=["fetchall", "loop", "fetchmany", "fetchone", "next"],
)
def test_damage_reached_while_rows_are_fetched_names_the_file(damaged_store, read):
    with Store.open(damaged_store) as store:
        cur = store._conn.execute("SELECT id, text FROM facts ORDER BY rowid")  # the first rows read
        with pytest.raises(StoreError) as caught:
            read(cur)
    assert str(caught.value) == damage(damaged_store)
    # still the driver's damage, never the OperationalError of a table renamed by hand
    assert isinstance(caught.value, sqlite3.DatabaseError)
    assert not isinstance(caught.value, sqlite3.OperationalError)


def test_damage_reached_inside_a_write_says_nothing_was_written(damaged_store):
    before = damaged_store.read_bytes()
    with Store.open(damaged_store) as store, pytest.raises(StoreError) as caught:
        with store.transaction() as conn:
            conn.execute("UPDATE meta SET value = value")
            conn.execute("SELECT id FROM facts ORDER BY rowid").fetchall()
    assert str(caught.value) == (
        f"{damaged_store}: the database is corrupt (database disk image is malformed);"
        f" nothing was written ({CURE})"
    )
    with Store.open(damaged_store) as store:
        store.checkpoint()
    assert damaged_store.read_bytes() == before


# -- every command ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ("export",),
        ("score",),
        ("show", "n0001"),
        ("neighbours", "n0001"),
        ("suggest",),
        ("calibrate",),
        ("edges",),
    ],
    ids=lambda c: " ".join(c),
)
def test_a_command_reading_into_a_damaged_page_is_one_line_naming_the_file(damaged_store, command):
    got = run(command[0], damaged_store, *command[1:], ok=False)
    assert (got.exit_code, got.stderr) == (2, f"error: {damage(damaged_store)}\n")


def test_an_mcp_server_on_a_damaged_store_refuses_to_start_naming_the_file(damaged_store):
    got = run("mcp", damaged_store, ok=False)  # it reads every fact before it serves
    assert (got.exit_code, got.stderr) == (2, f"error: {damage(damaged_store)}\n")


def test_an_mcp_tool_reading_into_a_page_damaged_under_the_server_is_one_line_tool_error(
    tmp_path, monkeypatch
):
    pytest.importorskip("mcp")
    monkeypatch.setattr(sys, "stderr", sys.__stderr__)  # the server's stderr: a real file
    db = many_facts(tmp_path)
    index = leaves(db, "facts_fts_data")  # the word index, read by a search only
    assert len(index) > 2

    async def scenario(session):
        got = {"first": await session.call_tool("show", {"id": "n0001"})}  # the store is open
        overwrite(db, index[-1])
        got["search"] = await session.call_tool("search", {"query": "words"})
        return {name: (result.is_error, result.content[0].text) for name, result in got.items()}

    got = serve(db, None, scenario)
    assert got["first"][0] is False
    assert got["search"] == (True, f"Error executing tool search: {damage('memory.db')}")  # its name only


# -- SQLite's own read-only refusal ----------------------------------------------------------


def test_a_store_whose_wal_cannot_be_written_refuses_a_write_in_sqlites_words(db):
    before = content(db)
    with read_only_wal(db):
        for command in (("corroborate", "e"), ("supersede", "c", "d"), ("accept", "a")):
            got = run(command[0], db, *command[1:], ok=False)
            assert (got.exit_code, got.stderr) == (
                2,
                f"error: {db}: the store cannot be written (attempt to write a readonly database:"
                " a read-only file or folder?); nothing was written\n",
            ), command
        assert run("show", db, "a").stdout.startswith("a ")  # reading it is not refused
    assert content(db) == before


def test_a_store_file_that_cannot_be_written_opens_read_only_and_says_so(db):
    """The product's own words, before SQLite is asked: the file itself cannot be written."""
    before = content(db)
    with immutable(db):
        assert run("show", db, "a").stdout.startswith("a ")
        got = run("corroborate", db, "e", ok=False)
        assert (got.exit_code, got.stderr) == (
            2,
            f"error: {db}: opened read-only ({db} cannot be written): triage cannot change it\n",
        )
        new = write_jsonl(
            db.with_name("new.jsonl"), [{"id": "n", "text": "t", "created_at": "2026-11-01T00:00:00Z"}]
        )
        got = run("import", new, "--db", db, ok=False)
        assert (got.exit_code, got.stderr) == (
            2,
            f"error: {db}: opened read-only ({db} cannot be written); nothing can be changed\n",
        )
    assert content(db) == before


# -- a disk that fails a read past the first rows -------------------------------------------


def test_a_bad_sector_reached_while_rows_are_fetched_names_the_file(tmp_path):
    """SQLite on Linux reports a read's EIO as damage (SQLITE_IOERR_CORRUPTFS becomes
    SQLITE_CORRUPT): a disk's bad sector reads as a damaged page, named the same way."""
    db = many_facts(tmp_path)
    with bad_sectors_from(db, leaves(db)[-1], tmp_path) as copy:
        with Store.open(copy) as store:
            assert store.readonly  # a read-only disk
            cur = store._conn.execute("SELECT id, text FROM facts ORDER BY rowid")  # the first rows read
            with pytest.raises(StoreError) as caught:
                cur.fetchall()
        assert str(caught.value) == damage(copy)
        got = run("export", copy, ok=False)
        assert (got.exit_code, got.stderr) == (2, f"error: {damage(copy)}\n")
