"""What carries the Store's statements to PostgreSQL (postgres/dialect.py): psycopg's
placeholders, the dialects' spellings, plain rows by COPY, and statements that wait."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.location import locate
from synapse_tui.core.store.postgres.dialect import Connection, translate


@pytest.mark.parametrize(
    ("sqlite", "postgres", "marks"),
    [
        ("SELECT id FROM facts WHERE deleted = 1", "SELECT id FROM facts WHERE deleted = 1", 0),
        (
            "SELECT key FROM meta WHERE key LIKE 'deleted.at.%' AND value = ?",
            "SELECT key FROM meta WHERE key LIKE 'deleted.at.%%' AND value = %s",
            1,
        ),
        (  # an optional argument: its type said in the statement, as both databases read it
            "SELECT u.undoes FROM audit u WHERE (CAST(? AS TEXT) IS NULL OR u.undoes = ?)",
            "SELECT u.undoes FROM audit u WHERE (CAST(%s AS TEXT) IS NULL OR u.undoes = %s)",
            2,
        ),
    ],
)
def test_placeholders_in_psycopgs_spelling(sqlite, postgres, marks):
    assert translate(sqlite) == (postgres, marks)


@pytest.mark.postgres
def test_the_dialects_spell_one_statement_for_each_database(pg_url):
    """A statement built once through each `Dialect` reads the same rows on both databases:
    a list bound at one placeholder, a table scanned whole."""
    import sqlite3

    import psycopg

    from synapse_tui.core.store.dialect import SQLITE
    from synapse_tui.core.store.postgres.dialect import POSTGRES

    def statement(d):
        return f"SELECT k FROM {d.unindexed('t')} WHERE {d.in_list('k')} ORDER BY k", (
            d.list_arg(["b", "c", "x"]),
        )

    lite = sqlite3.connect(":memory:")
    lite.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
    lite.executemany("INSERT INTO t VALUES (?)", [("a",), ("b",), ("c",)])
    with psycopg.connect(pg_url, autocommit=True) as raw:
        raw.execute("CREATE TEMP TABLE t (k text PRIMARY KEY)")
        raw.execute("INSERT INTO t VALUES ('a'), ('b'), ('c')")
        conn = Connection(raw, locate(pg_url))
        assert lite.execute(*statement(SQLITE)).fetchall() == [("b",), ("c",)]
        assert conn.execute(*statement(POSTGRES)).fetchall() == [("b",), ("c",)]
        # an upsert replaces the row of a taken key, an ignoring insert keeps it
        for db, d in ((lite, SQLITE), (conn, POSTGRES)):
            db.execute("CREATE TEMP TABLE m (k text PRIMARY KEY, v text)")
            db.execute(d.upsert("m", ("k", "v"), "k", "VALUES (?, ?)"), ("a", "1"))
            db.execute(d.upsert("m", ("k", "v"), "k", "VALUES (?, ?)"), ("a", "2"))
            db.execute(d.insert_ignore("m", ("k", "v"), "VALUES (?, ?)"), ("a", "3"))
            assert db.execute("SELECT k, v FROM m").fetchall() == [("a", "2")]
        # a day count and a JSON key: the same doubles, the same texts
        for db in (lite, conn):
            db.execute("CREATE TEMP TABLE j (at text, doc text)")
            db.execute(
                "INSERT INTO j VALUES (?, ?)",
                ("2026-03-01T12:34:56.789Z", '{"when": "2026-01-01T00:00:00Z", "n": "x"}'),
            )
        picks = []
        for db, d in ((lite, SQLITE), (conn, POSTGRES)):
            when = d.day_number(d.json_text("doc", "when"))
            picks.append(
                db.execute(
                    f"SELECT {d.day_number('at')}, {d.day_number('at')} - {when}, {d.json_text('doc', 'n')},"
                    f" {d.json_text('doc', 'gone')} IS NULL FROM j WHERE {d.day_number('at')} > {d.day_number('?')}",
                    ("2026-02-01T00:00:00Z",),
                ).fetchall()
            )
        assert picks[0] == picks[1] and len(picks[0]) == 1


@pytest.mark.postgres
def test_the_json_comparison_matches_strings_only_as_sqlite_does(pg_url):
    """A number or boolean at the key is not the text of it; a provenance that is not a JSON
    object matches nothing (SQLite's json_extract would raise on malformed JSON: none is
    stored, an import checks it)."""
    import sqlite3

    import psycopg

    rows = ['{"x-source": "5"}', '{"x-source": 5}', '{"x-source": true}', '{"y": 1}', "[1]", None]
    sql = "SELECT count(*) FROM t WHERE json_extract(p, '$.\"x-source\"') = ?"
    # the PgStore's spelling of it (its imports' `from_source`)
    pg_sql = "SELECT count(*) FROM t WHERE (CASE WHEN p IS JSON OBJECT THEN p::jsonb -> 'x-source' END) = to_jsonb(%s::text)"
    lite = sqlite3.connect(":memory:")
    lite.execute("CREATE TABLE t (p TEXT)")
    lite.executemany("INSERT INTO t VALUES (?)", [(r,) for r in rows])
    with psycopg.connect(pg_url, autocommit=True) as pg:
        pg.execute("CREATE TEMP TABLE t (p text)")
        pg.cursor().executemany("INSERT INTO t VALUES (%s)", [(r,) for r in rows])
        for value in ("5", "true", "1"):
            expected = lite.execute(sql, (value,)).fetchone()
            assert pg.execute(pg_sql, (value,)).fetchone() == expected, value


@pytest.mark.postgres
def test_plain_rows_in_bulk_land_alike_on_both_and_refuse_alike(pg_url):
    """`Dialect.insert_rows`: a file's executemany and a server's COPY land the same rows
    (bytes, NULLs, numbers, a tab in text), and a clashing key fails the whole insert on
    both; one row alone goes on the server as a plain INSERT, counted as one change."""
    import sqlite3

    import psycopg

    from synapse_tui.core.store.dialect import SQLITE
    from synapse_tui.core.store.postgres.dialect import POSTGRES

    columns = ("k", "b", "x", "s")
    rows = [(1, b"\x00\xff", 0.5, "é\ttab"), (2, None, 1, None)]
    landed = [(1, b"\x00\xff", 0.5, "é\ttab"), (2, None, 1.0, None)]
    lite = sqlite3.connect(":memory:", isolation_level=None)
    lite.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, b BLOB, x REAL, s TEXT)")
    with psycopg.connect(pg_url, autocommit=True) as raw:
        conn = Connection(raw, locate(pg_url))
        raw.execute("CREATE TEMP TABLE t (k int PRIMARY KEY, b bytea, x double precision, s text)")
        changed = conn.total_changes
        for db, d in ((lite, SQLITE), (conn, POSTGRES)):
            d.insert_rows(db, "t", columns, rows)
        assert conn.total_changes == changed + 2
        assert raw.execute("SELECT * FROM t ORDER BY k").fetchall() == landed
        assert lite.execute("SELECT * FROM t ORDER BY k").fetchall() == landed
        clash = [(3, None, 0, "a"), (1, None, 0, "b")]
        lite.execute("BEGIN")  # as a file's store inserts: inside its transaction
        with pytest.raises(sqlite3.IntegrityError):
            SQLITE.insert_rows(lite, "t", columns, clash)
        lite.execute("ROLLBACK")
        with pytest.raises(psycopg.errors.UniqueViolation):
            POSTGRES.insert_rows(conn, "t", columns, clash)
        assert raw.execute("SELECT count(*) FROM t").fetchone() == (2,)
        assert lite.execute("SELECT count(*) FROM t").fetchone() == (2,)
        # one row alone (an action's audit entry) goes as a plain INSERT: the same row, the same refusal
        changed = conn.total_changes
        POSTGRES.insert_rows(conn, "t", columns, [(4, b"\x01", 2, "z")])
        assert conn.total_changes == changed + 1
        assert raw.execute("SELECT * FROM t WHERE k = 4").fetchone() == (4, b"\x01", 2.0, "z")
        with pytest.raises(psycopg.errors.UniqueViolation):
            POSTGRES.insert_rows(conn, "t", columns, [(4, None, 0, "again")])


@pytest.mark.postgres
def test_writes_inside_a_transaction_go_with_the_next_statement(pg_url):
    """A statement inside a transaction waits until its answer is asked for: a write goes
    with the next read (one round trip for both), which sees it; its rowcount is what it
    changed, and a refused one is raised inside the transaction, which then keeps nothing."""
    import psycopg

    from synapse_tui.core.base.location import locate

    with psycopg.connect(pg_url, autocommit=True) as raw:
        raw.execute("CREATE TABLE w (k int PRIMARY KEY, v text)")
        raw.execute("INSERT INTO w VALUES (1, 'one'), (2, 'two')")
        conn = Connection(raw, locate(pg_url))
        changed = conn.total_changes
        conn.later("BEGIN")
        updated = conn.execute("UPDATE w SET v = ? WHERE k >= ?", ("many", 1))
        assert conn.execute("SELECT v FROM w ORDER BY k").fetchall() == [("many",), ("many",)]
        assert updated.rowcount == 2 and conn.total_changes == changed + 2
        conn.run("COMMIT")
        assert raw.execute("SELECT count(*) FROM w WHERE v = 'many'").fetchone() == (2,)

        conn.later("BEGIN")
        conn.execute("UPDATE w SET v = 'lost' WHERE k = 1")
        conn.execute("INSERT INTO w (k, v) VALUES (?, ?)", (2, "clash"))
        assert conn.in_transaction
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute("SELECT v FROM w WHERE k = 1").fetchall()
        conn.discard()
        assert not conn.in_transaction
        assert conn.execute("SELECT k, v FROM w ORDER BY k").fetchall() == [(1, "many"), (2, "many")]

        conn.later("BEGIN")  # a transaction that sent nothing ends with nothing to send
        conn.execute("UPDATE w SET v = 'never' WHERE k = 1")
        conn.discard()
        assert conn.execute("SELECT v FROM w WHERE k = 1").fetchone() == ("many",)

        # a read goes when its rows are asked for: one not asked before its snapshot ends
        # went with the COMMIT, and its rows are there after
        conn.later("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        waiting = conn.execute("SELECT v FROM w WHERE k = ?", (2,))
        conn.end_read()
        assert not conn.in_transaction and waiting.fetchall() == [("many",)]
