"""What a sync reads first of the store: the facts of its source already there
(`known_facts`), on a file and on a server (tests/backends.py), with the same values as
each fact's own record: its id, source record id and version (typed as SQLite's
json_extract gives them), text, note, whether anything supersedes it, the deletion flag,
and its whole provenance."""

from __future__ import annotations

import json

import pytest

from synapse_tui.core.ingest.adapters import KnownFact, known_facts
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store import imports
from synapse_tui.core.store.db import Store
from tests.helpers import NOW, write_jsonl

# (x-source-id, x-source-version) as an adapter or a hand-written file may record them,
# and the record and version a reader then sees
RECORDS = [
    ("notes/a.md#1", 1, "notes/a.md#1", 1),
    ("notes/a.md#1", 2, "notes/a.md#1", 2),
    (7, None, "7", 1),
    (2.5, True, "2.5", 1),
    (True, 3.0, "1", 3),
    (None, 4, "None", 4),
    ({"k": [1, "é"]}, None, '{"k":[1,"é"]}', 1),
    ("ünïcode \u2028 line", "5", "ünïcode \u2028 line", 5),
]


def _facts() -> tuple[list[dict], list[KnownFact]]:
    facts, expected = [], []
    for i, (record, version, seen_record, seen_version) in enumerate(RECORDS):
        provenance = {"x-source": "notes", "x-source-id": record, "x-notes-line": i, "x-notes-root": "/r"}
        if version is not None:
            provenance["x-source-version"] = version
        fact = {"id": f"notes:{i}", "text": f"fact {i}", "created_at": NOW, "provenance": provenance}
        if i == 1:
            fact["supersedes"] = "notes:0"
        if i == 2:
            fact["note"] = "a note"
        if i == 3:
            fact["deleted"] = True
        facts.append(fact)
        expected.append(
            KnownFact(
                f"notes:{i}",
                seen_record,
                seen_version,
                f"fact {i}",
                fact.get("note"),
                head=i != 0,
                deleted=i == 3,
                provenance=provenance,
            )  # fmt: skip
        )
    # another system's facts, one of them superseding a notes fact: not read, but it makes
    # that fact no longer the head of its record
    facts.append({"id": "other:1", "text": "other", "created_at": NOW, "provenance": {"x-source": "other"}})
    facts.append(
        {"id": "other:2", "text": "other 2", "created_at": NOW, "supersedes": "notes:4",
         "provenance": {"x-source": "other", "x-source-id": "notes"}}
    )  # fmt: skip
    expected[4] = KnownFact(**{**expected[4].__dict__, "head": False})
    # x-source not the string "notes": not this source's (a number, an array)
    facts.append({"id": "num", "text": "n", "created_at": NOW, "provenance": {"x-source": 5}})
    facts.append({"id": "arr", "text": "a", "created_at": NOW, "provenance": {"x-source": ["notes"]}})
    facts.append({"id": "none", "text": "no provenance", "created_at": NOW})
    return facts, expected


def test_a_sources_facts_come_back_as_each_one_records_them(new_store, tmp_path):
    facts, expected = _facts()
    location = new_store("known")
    with Store.open(location, create=True) as store:
        import_facts(store, parse_file(write_jsonl(tmp_path / "f.jsonl", facts)), "f.jsonl")
    with Store.open(location, readonly=True) as store:
        got = known_facts(store, "notes")
        assert known_facts(store, "5") == [] and known_facts(store, "missing") == []
        assert [k.id for k in known_facts(store, "other")] == ["other:1", "other:2"]
    assert got == expected
    # compare=False leaves the provenance out of ==: each compared whole, typed as written
    assert [k.provenance for k in got] == [k.provenance for k in expected]
    assert all(type(k.record) is str and type(k.version) is int for k in got)
    assert all(type(k.head) is bool and type(k.deleted) is bool for k in got)
    with pytest.raises(AttributeError):  # still a frozen record
        got[0].text = "changed"  # type: ignore[misc]


def test_many_facts_parse_in_batches_and_keep_their_order(new_store, tmp_path, monkeypatch):
    monkeypatch.setattr(imports, "PARSE_BATCH", 7)
    facts = [
        {"id": f"m:{i}", "text": f"fact {i}", "created_at": NOW,
         "provenance": {"x-source": "m", "x-source-id": f"r{i % 13}", "x-m-line": i}}
        for i in range(50)
    ]  # fmt: skip
    location = new_store("many")
    with Store.open(location, create=True) as store:
        import_facts(store, parse_file(write_jsonl(tmp_path / "f.jsonl", facts)), "f.jsonl")
    with Store.open(location, readonly=True) as store:
        got = known_facts(store, "m")
    assert [(k.id, k.record, k.provenance["x-m-line"]) for k in got] == [
        (f"m:{i}", f"r{i % 13}", i) for i in range(50)
    ]


def test_a_batch_holding_a_malformed_text_fails_as_that_texts_own_parse():
    """A database's JSON check lets no malformed provenance through (SQLite's json_extract
    raises on one); were one read, the batch is parsed text by text and fails as json.loads
    of that text does, naming where."""
    with pytest.raises(json.JSONDecodeError, match="line 1 column 2"):
        imports.parse_objects(['{"a": 1}', "{not json}"])
    assert imports.parse_objects(['{"a": 1}', "[2]", '"s"', " 3 "]) == [{"a": 1}, [2], "s", 3]


def test_a_store_made_before_the_source_index_reads_the_same_then_gains_it(tmp_path):
    """m008 adds only an index of each fact's x-source: a store without it (schema 7)
    gives the same facts read-only, and a writable open adds it. A provenance someone broke
    by hand is passed over, not a refusal of the whole read."""
    import sqlite3

    from synapse_tui.core.store.schema import SCHEMA_VERSION

    facts, expected = _facts()
    db = tmp_path / "m.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(write_jsonl(tmp_path / "f.jsonl", facts)), "f.jsonl")
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("DROP INDEX facts_source")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm008_facts_source'")
        conn.execute("PRAGMA user_version = 7")
        conn.execute("UPDATE facts SET provenance = '{\"x-source\": \"notes\", broken' WHERE id = 'other:1'")
    conn.close()
    with Store.open(db, readonly=True) as store:
        assert known_facts(store, "notes") == expected
        assert [k.id for k in known_facts(store, "other")] == ["other:2"]
    with Store.open(db) as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store._conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'facts_source'").fetchone()
        assert known_facts(store, "notes") == expected


def test_a_field_added_to_knownfact_is_filled_by_its_own_init(tmp_path, monkeypatch):
    """known_facts fills the fields it knows without __init__; were KnownFact to gain one,
    it builds each by __init__ instead (the defaults then set), with the same values."""
    from synapse_tui.core.ingest import adapters

    facts, expected = _facts()
    db = tmp_path / "m.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(write_jsonl(tmp_path / "f.jsonl", facts)), "f.jsonl")
    monkeypatch.setattr(adapters, "_FILLED", ())
    with Store.open(db, readonly=True) as store:
        assert known_facts(store, "notes") == expected
