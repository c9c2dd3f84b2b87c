"""The store's schema on a server: the SQLite tables mirrored, versioned, and refused when
the database is not one of ours."""

from __future__ import annotations

import json
import sqlite3

import pytest

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import locate
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.postgres import schema
from synapse_tui.core.store.postgres.server import open_server
from tests.helpers import run

pytestmark = pytest.mark.postgres

# each backend's own: SQLite's word index (FTS5 and its shadow tables) and migration record
SQLITE_ONLY = ("facts_fts", "_sqlite_migrations", "sqlite_")


def columns_sqlite(path) -> dict[str, list[str]]:
    """A new file store's tables and columns, read from SQLite's catalog (not the store's
    own connection, which is private)."""
    Store.open(path, create=True).close()
    conn = sqlite3.connect(path)
    try:
        names = [
            n
            for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not n.startswith(SQLITE_ONLY)
        ]
        return {n: [row[1] for row in conn.execute(f"PRAGMA table_info({n})")] for n in names}
    finally:
        conn.close()


def columns_server(conn) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for table, column in conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name <> 'synapse_migrations'"
        " ORDER BY table_name, ordinal_position"
    ):
        found.setdefault(table, []).append(column)
    return found


def test_a_new_store_mirrors_the_sqlite_tables_column_for_column(new_database, tmp_path):
    where = locate(new_database())
    with open_server(where, create=True) as conn:
        assert columns_server(conn) == columns_sqlite(tmp_path / "m.db")
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        migrations = [n for (n,) in conn.execute("SELECT name FROM synapse_migrations ORDER BY name")]
    assert json.loads(meta["store.kind"]) == schema.KIND
    assert json.loads(meta["store.schema"]) == schema.SCHEMA_VERSION
    assert migrations == [name for name, _ in schema.MIGRATIONS]
    # the copy moves every table both backends keep, with the columns both have
    assert {t.name: list(t.columns) for t in schema.TABLES} == {
        name: cols for name, cols in columns_sqlite(tmp_path / "m.db").items() if name != "facts_changes"
    }


def test_an_open_store_is_left_as_it_is(new_database):
    where = locate(new_database())
    open_server(where, create=True).close()
    with open_server(where) as conn:
        assert conn.execute("SELECT count(*) FROM synapse_migrations").fetchone() == (schema.SCHEMA_VERSION,)


def test_an_older_store_is_migrated_and_a_read_only_open_refuses_to(new_database):
    where = locate(new_database())
    with open_server(where, create=True) as conn:
        conn.execute("DROP TABLE facts_changes CASCADE")
        conn.execute("DELETE FROM synapse_migrations WHERE name = 'p002_change_log'")
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'store.schema'")
        for fn in ("facts_log_inserted", "facts_log_updated", "facts_log_deleted", "facts_changes_noticed"):
            conn.execute(f"DROP FUNCTION {fn} CASCADE")
        conn.execute("DROP FUNCTION synapse_token")
        conn.commit()
    with pytest.raises(StoreError, match="needs an upgrade"):
        open_server(where, readonly=True)
    with open_server(where) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'store.schema'").fetchone() == (
            str(schema.SCHEMA_VERSION),
        )
        assert conn.execute("SELECT kind FROM facts_changes").fetchall() == [("s",)]


def refusal(url: str) -> str:
    with pytest.raises(StoreError) as caught:
        open_server(locate(url), create=True)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_database_that_is_not_ours_is_refused_and_left_alone(new_database):
    import psycopg

    url = new_database()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE orders (id int)")
    assert "holds other tables, not a synapse-tui store" in refusal(url)
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone() == (1,)


def test_a_sqlite_store_loaded_by_another_tool_is_refused(new_database):
    import psycopg

    url = new_database()
    with psycopg.connect(url, autocommit=True) as conn:  # what pgloader makes of a store file
        for table in ("meta (key text, value text)", "facts (pos bigint, id text)", "audit (seq bigint)"):
            conn.execute(f"CREATE TABLE {table}")
    assert "not one synapse-tui made on PostgreSQL" in refusal(url)


def test_a_store_of_a_newer_synapse_tui_is_refused(new_database):
    where = locate(new_database())
    with open_server(where, create=True) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'store.schema'")
        conn.commit()
    assert f"made by a newer synapse-tui (schema 99 > {schema.SCHEMA_VERSION})" in refusal(where.target)


def test_no_password_in_a_refusal(pg_server):
    url = pg_server.get_uri("postgres").replace("postgres:@", "nobody:hunter2@")
    message = refusal(url)
    assert "hunter2" not in message and "nobody@" in message


def test_a_row_without_events_is_refused_by_the_server_and_named_if_there_before(db, new_database):
    """A server many programs write to refuses a fact row without its creation instant; one
    written before the check (it does not scan old rows) is named by every reader."""
    import psycopg

    url = new_database()
    run("copy", db, url)
    bare = (
        "INSERT INTO facts (id, text, created_at, created_ts, r, s, events)"
        " VALUES ('bare', 'put here by another program', '2026-12-01T00:00:00Z', 0, 0, 0, '')"
    )
    with psycopg.connect(url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(bare)
        conn.execute("ALTER TABLE facts DROP CONSTRAINT facts_events_begin_with_creation")
        conn.execute(bare)
        conn.execute(
            "ALTER TABLE facts ADD CONSTRAINT facts_events_begin_with_creation"
            " CHECK (octet_length(events) >= 8 AND octet_length(events) % 8 = 0) NOT VALID"
        )
    got = run("score", url, ok=False)
    assert got.exit_code == 2 and got.stderr.startswith("error: fact 'bare' has no events")
