"""The rules that carry the Store's SQLite statements to PostgreSQL (postgres/dialect.py)."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import locate
from synapse_tui.core.store.postgres.dialect import Connection, Untranslatable, copy_target, translate


@pytest.mark.parametrize(
    ("sqlite", "postgres", "lists"),
    [
        ("SELECT id FROM facts WHERE deleted = 1", "SELECT id FROM facts WHERE deleted = 1", ()),
        (
            "SELECT key FROM meta WHERE key LIKE 'deleted.at.%' AND value = ?",
            "SELECT key FROM meta WHERE key LIKE 'deleted.at.%%' AND value = %s",
            (False,),
        ),
        (  # an optional argument: its type said in the statement, as both databases read it
            "SELECT u.undoes FROM audit u WHERE (CAST(? AS TEXT) IS NULL OR u.undoes = ?)",
            "SELECT u.undoes FROM audit u WHERE (CAST(%s AS TEXT) IS NULL OR u.undoes = %s)",
            (False, False),
        ),
        (
            "PRAGMA data_version",
            "SELECT (SELECT coalesce(max(seq), 0) FROM facts_changes) * 4294967296"
            " + (SELECT coalesce(max(seq), 0) FROM audit)",
            (),
        ),
    ],
)
def test_each_rule(sqlite, postgres, lists):
    assert translate(sqlite) == (postgres, lists)


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


@pytest.mark.parametrize(
    "sqlite",
    [
        "PRAGMA wal_checkpoint(TRUNCATE)",
        "SELECT json_extract(provenance, '$.x') FROM facts",
        "SELECT json_extract(score_before, '$.trust') FROM audit",
        "SELECT rowid FROM facts_fts WHERE facts_fts MATCH ?",
        "SELECT name FROM sqlite_master",
        "SELECT group_concat(pos - 1, ',') FROM facts",  # each backend aggregates its own way
        "SELECT pos FROM facts WHERE pos IN (SELECT value FROM json_each(?))",  # Dialect.in_list
        "SELECT eid FROM mentions NOT INDEXED",  # Dialect.unindexed
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",  # Dialect.upsert
        "INSERT OR IGNORE INTO entities (key) VALUES (?)",  # Dialect.insert_ignore
    ],
)
def test_what_no_rule_carries_never_reaches_the_server(sqlite):
    with pytest.raises(Untranslatable, match="internal error: SQLite's"):
        translate(sqlite)


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


@pytest.mark.parametrize(
    ("sqlite", "copy"),
    [
        (
            "INSERT INTO embeddings (pos, kind, vec) VALUES (?, ?, ?)",
            "COPY embeddings (pos, kind, vec) FROM STDIN",
        ),
        (
            "INSERT INTO semantic_edges (a, b, weight, kind) VALUES (?,?,?,?)",
            "COPY semantic_edges (a, b, weight, kind) FROM STDIN",
        ),
        ("INSERT INTO embeddings (pos, kind, vec) VALUES (?, 'model', ?)", None),  # a value of its own
        (
            "INSERT INTO mentions (pos, eid, spelling) VALUES (?, (SELECT eid FROM entities WHERE key = ?), ?)",
            None,
        ),
        ("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT DO NOTHING", None),
        ("INSERT INTO entities (key) VALUES (?) ON CONFLICT DO NOTHING", None),
        ("INSERT INTO facts (pos, id) VALUES (?)", None),  # placeholders and columns disagree
    ],
)
def test_plain_inserts_of_many_rows_become_a_copy(sqlite, copy):
    assert copy_target(sqlite) == copy


@pytest.mark.postgres
def test_a_copy_refuses_what_the_inserts_would(pg_url):
    """Rows by COPY land as executemany's would (bytes, NULLs, numbers), and a clashing key
    fails the whole statement."""
    import psycopg

    from synapse_tui.core.base.location import locate

    with psycopg.connect(pg_url, autocommit=True) as raw:
        conn = Connection(raw, locate(pg_url))
        raw.execute("CREATE TEMP TABLE t (k int PRIMARY KEY, b bytea, x double precision, s text)")
        rows = [(1, b"\x00\xff", 0.5, "é\ttab"), (2, None, 1, None)]
        assert conn.executemany("INSERT INTO t (k, b, x, s) VALUES (?, ?, ?, ?)", rows).rowcount == 2
        assert raw.execute("SELECT * FROM t ORDER BY k").fetchall() == [
            (1, b"\x00\xff", 0.5, "é\ttab"),
            (2, None, 1.0, None),
        ]
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.executemany(
                "INSERT INTO t (k, b, x, s) VALUES (?, ?, ?, ?)", [(3, None, 0, "a"), (1, None, 0, "b")]
            )
        assert raw.execute("SELECT count(*) FROM t").fetchone() == (2,)
        # one row alone (an action's audit entry) goes as a plain INSERT: the same row, the same refusal
        changed = conn.total_changes
        assert (
            conn.executemany(
                "INSERT INTO t (k, b, x, s) VALUES (?, ?, ?, ?)", [(4, b"\x01", 2, "z")]
            ).rowcount
            == 1
        )
        assert conn.total_changes == changed + 1
        assert raw.execute("SELECT * FROM t WHERE k = 4").fetchone() == (4, b"\x01", 2.0, "z")
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.executemany("INSERT INTO t (k, b, x, s) VALUES (?, ?, ?, ?)", [(4, None, 0, "again")])


def test_a_path_that_still_needs_sqlite_refuses_the_server_in_one_line():
    conn = Connection(None, locate("postgresql://team:hunter2@db/memory"))
    with pytest.raises(StoreError) as caught:
        conn.execute("PRAGMA database_list")
    assert str(caught.value) == (
        "postgresql://team@db/memory: a PostgreSQL server; this does not work on a server yet"
        " (it needs SQLite's PRAGMA); copy the store to a file to use it"
    )


@pytest.mark.postgres
def test_writes_inside_a_transaction_go_with_the_next_statement(pg_url):
    """A write inside a transaction waits for the next statement (one round trip for both):
    what reads after it sees it, its rowcount is what it changed, and a refused one is
    raised inside the transaction, which then keeps nothing."""
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
