"""Store and source names are names, never SQLite URI syntax (issue 37, point 5): `#` and
`?` do not cut a name short and `%41` is not decoded, and reading a LangGraph source
writes nothing beside it (no `-shm`, no `-journal`)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from synapse_tui.core.ingest.adapters import open_read_only
from tests.cli_run import run
from tests.helpers import write_jsonl

FACT = {"id": "a", "text": "Maria owns the Payments API", "created_at": "2026-01-01T00:00:00Z"}


def listing(folder) -> set[str]:
    return {p.name for p in folder.iterdir()}


@pytest.mark.parametrize("name", ["team#1.db", "p%41.db", "what?mode=memory.db", "a b&c=d.db"])
def test_a_store_is_the_file_named(tmp_path, name):
    src = write_jsonl(tmp_path / "f.jsonl", [FACT])
    db = tmp_path / name
    run("import", src, "--db", db)
    assert db.is_file()
    assert listing(tmp_path) <= {"f.jsonl", name, f"{name.removesuffix('.db')}-graph", f"{name}-graph"}, (
        listing(tmp_path)
    )
    assert json.loads(run("show", db, "a", "--json").stdout)["id"] == "a"


def langgraph_store(path, wal: bool):
    """A LangGraph `store` table (the shape langgraph's SqliteStore writes), WAL or not."""
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(
        "CREATE TABLE store (prefix TEXT, key TEXT, value TEXT, created_at TIMESTAMP,"
        " updated_at TIMESTAMP, expires_at TIMESTAMP, ttl_minutes REAL, PRIMARY KEY (prefix, key))"
    )
    conn.execute(
        "INSERT INTO store VALUES ('memories.u1', 'k1', ?, '2026-01-01 00:00:00', '2026-01-01 00:00:00', NULL, NULL)",
        (json.dumps({"content": "Maria owns the Payments API"}),),
    )
    conn.commit()
    return conn


@pytest.mark.parametrize("name", ["lg.db", "store#2.db", "lg%41.db"])
@pytest.mark.parametrize("wal", [False, True], ids=["rollback", "wal"])
@pytest.mark.parametrize("agent_open", [False, True], ids=["closed", "open"])
def test_a_langgraph_source_is_read_and_nothing_is_written_beside_it(tmp_path, name, wal, agent_open):
    folder = tmp_path / "agent"
    folder.mkdir()
    writer = langgraph_store(folder / name, wal)  # open: its -wal and -shm stay
    if not agent_open:
        writer.close()  # closed: SQLite removed them
    before = listing(folder)
    out = run("import", "--from", "langgraph", folder / name, "--db", tmp_path / "m.db").stdout
    assert "1 added" in out
    assert listing(folder) == before, listing(folder) - before
    writer.close()


def test_a_wal_source_with_uncommitted_pages_is_read_in_full(tmp_path):
    """Transactions still in the -wal (not checkpointed) are read, from a private copy."""
    path = tmp_path / "lg.db"
    writer = langgraph_store(path, wal=True)
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute(
        "INSERT INTO store VALUES ('memories.u1', 'k2', '{\"content\": \"second\"}', NULL, NULL, NULL, NULL)"
    )
    writer.commit()
    assert (tmp_path / "lg.db-wal").stat().st_size > 0
    before = listing(tmp_path)
    conn = open_read_only(path)
    try:
        assert conn.execute("SELECT count(*) FROM store").fetchone()[0] == 2
    finally:
        conn.close()
    assert listing(tmp_path) == before
    writer.close()
