"""The rules that carry the Store's SQLite statements to PostgreSQL (postgres/dialect.py)."""

from __future__ import annotations

import pytest

from synapse_tui.core.store.postgres.dialect import Untranslatable, translate


@pytest.mark.parametrize(
    ("sqlite", "postgres", "lists"),
    [
        (
            "SELECT pos, id FROM facts WHERE pos IN (SELECT value FROM json_each(?)) AND note = ?",
            "SELECT pos, id FROM facts WHERE pos = ANY(%s) AND note = %s",
            (True, False),
        ),
        (
            "SELECT group_concat(pos - 1, ',') FROM facts WHERE pos > ?",
            "SELECT string_agg((pos - 1)::text, ',') FROM facts WHERE pos > %s",
            (False,),
        ),
        ("SELECT count(*) FROM facts WHERE deleted", "SELECT count(*) FROM facts WHERE deleted <> 0", ()),
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
            "INSERT OR IGNORE INTO entities (key) VALUES (?)",
            "INSERT INTO entities (key) VALUES (%s) ON CONFLICT DO NOTHING",
            (False,),
        ),
        (
            "SELECT a FROM semantic_edges WHERE b = :p ORDER BY weight::text LIMIT :lim",
            "SELECT a FROM semantic_edges WHERE b = %(p)s ORDER BY weight::text LIMIT %(lim)s",
            (),
        ),
        (
            "PRAGMA data_version",
            "SELECT (SELECT coalesce(max(seq), 0) FROM facts_changes) * 4294967296"
            " + (SELECT coalesce(max(seq), 0) FROM audit)",
            (),
        ),
        (
            "SELECT eid, count(*) FROM mentions NOT INDEXED GROUP BY eid",
            "SELECT eid, count(*) FROM mentions GROUP BY eid",
            (),
        ),
    ],
)
def test_each_rule(sqlite, postgres, lists):
    assert translate(sqlite) == (postgres, lists)


@pytest.mark.parametrize(
    "sqlite",
    [
        "PRAGMA wal_checkpoint(TRUNCATE)",
        "SELECT json_extract(provenance, '$.x') FROM facts",
        "SELECT julianday(at) FROM audit",
        "SELECT rowid FROM facts_fts WHERE facts_fts MATCH ?",
        "SELECT name FROM sqlite_master",
    ],
)
def test_what_no_rule_carries_never_reaches_the_server(sqlite):
    with pytest.raises(Untranslatable, match="internal error: SQLite's"):
        translate(sqlite)
