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
        (
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
            "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (False, False),
        ),
        (
            "INSERT OR REPLACE INTO knn (pos, nbrs, cos) VALUES (?, ?, ?)",
            "INSERT INTO knn (pos, nbrs, cos) VALUES (%s, %s, %s) ON CONFLICT (pos) DO UPDATE SET"
            " nbrs = excluded.nbrs, cos = excluded.cos",
            (False, False, False),
        ),
        (
            "INSERT OR REPLACE INTO embeddings (pos, kind, vec) VALUES (?, 'model', ?)",
            "INSERT INTO embeddings (pos, kind, vec) VALUES (%s, 'model', %s) ON CONFLICT (pos) DO UPDATE SET"
            " kind = excluded.kind, vec = excluded.vec",
            (False, False),
        ),
        (
            "SELECT julianday(a.at) - julianday(json_extract(a.score_before, '$.last_reinforced_at')) FROM audit a",
            "SELECT ((floor(extract(epoch FROM (a.at)::timestamptz) * 1000 + 0.5) + 210866760000000)"
            " / 86400000.0)::float8 - ((floor(extract(epoch FROM (CASE WHEN a.score_before IS JSON OBJECT"
            " THEN a.score_before::json ->> 'last_reinforced_at' END)::timestamptz) * 1000 + 0.5)"
            " + 210866760000000) / 86400000.0)::float8 FROM audit a",
            (),
        ),
        (
            "INSERT OR REPLACE INTO meta (key, value) SELECT 'deleted.at.' || id, ? FROM facts WHERE id = ?",
            "INSERT INTO meta (key, value) SELECT 'deleted.at.' || id, %s FROM facts WHERE id = %s"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (False, False),
        ),
        (
            "SELECT id FROM facts WHERE json_extract(provenance, '$.\"x-source\"') = ? ORDER BY pos",
            "SELECT id FROM facts WHERE (CASE WHEN provenance IS JSON OBJECT THEN provenance::jsonb -> 'x-source'"
            " END) = to_jsonb(%s::text) ORDER BY pos",
            (False,),
        ),
        (
            "INSERT OR IGNORE INTO entities (key) VALUES (?)",
            "INSERT INTO entities (key) VALUES (%s) ON CONFLICT DO NOTHING",
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
        (
            "SELECT fact_id FROM audit WHERE julianday(at) > julianday(?)",
            "SELECT fact_id FROM audit WHERE ((floor(extract(epoch FROM (at)::timestamptz) * 1000 + 0.5)"
            " + 210866760000000) / 86400000.0)::float8 > ((floor(extract(epoch FROM (%s)::timestamptz)"
            " * 1000 + 0.5) + 210866760000000) / 86400000.0)::float8",
            (False,),
        ),
        (
            "SELECT 1 FROM audit WHERE json_extract(after, '$.superseded_by') IS NOT NULL",
            "SELECT 1 FROM audit WHERE (CASE WHEN after IS JSON OBJECT THEN after::json ->> 'superseded_by'"
            " END) IS NOT NULL",
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
        "INSERT OR REPLACE INTO facts (pos, id) VALUES (?, ?)",  # no key known for it: SQLite's own
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
    lite = sqlite3.connect(":memory:")
    lite.execute("CREATE TABLE t (p TEXT)")
    lite.executemany("INSERT INTO t VALUES (?)", [(r,) for r in rows])
    with psycopg.connect(pg_url, autocommit=True) as pg:
        pg.execute("CREATE TEMP TABLE t (p text)")
        pg.cursor().executemany("INSERT INTO t VALUES (%s)", [(r,) for r in rows])
        for value in ("5", "true", "1"):
            expected = lite.execute(sql, (value,)).fetchone()
            assert pg.execute(translate(sql)[0], (value,)).fetchone() == expected, value


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
        ("INSERT OR IGNORE INTO entities (key) VALUES (?)", None),
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
