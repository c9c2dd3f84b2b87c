"""Import, export and the store, on a real SQLite file and on a real server (tests/backends.py)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.errors import InputError, StoreError
from synapse_tui.core.base.location import is_server
from synapse_tui.core.ingest import signing
from synapse_tui.core.ingest.interchange import export_facts, import_facts, parse_file
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import FactDetail, Store
from synapse_tui.core.store.ops import Detail
from tests.helpers import OTHER, run, trusted_config, write_jsonl
from tests.store_state import mark


def test_store_is_wal_and_marked_as_ours(store_path):
    conn = sqlite3.connect(store_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA application_id").fetchone()[0] == 0x53594E41


def test_scores_after_import(store_location, now):
    with Store.open(store_location, readonly=True) as store:
        memory = Memory(store, trusted_config(), now)
        rows = {r["id"]: r for r in memory.rows()}
    assert rows["a"]["k"] == 1 and rows["a"]["supersession"] == 0.5
    assert rows["b"]["tier"] == "human" and rows["b"]["k"] == 0
    assert rows["c"]["tier"] == "signed" and rows["c"]["gate"] == 1.0 and rows["c"]["flags"] == []
    assert rows["d"]["tier"] == "auto" and rows["d"]["flags"] == ["signature_invalid"]
    assert rows["e"]["guidance"] == "disputed" and rows["e"]["k"] == 0


def test_untrusted_key_is_flagged(new_store, tmp_path, now):
    fact = {"id": "u", "text": "t", "created_at": "2026-01-01T00:00:00Z", "tier": "signed"}
    fact["signature"] = signing.sign(OTHER, "u", fact["created_at"], "t")
    src = write_jsonl(tmp_path / "u.jsonl", [fact])
    with Store.open(new_store("u"), create=True) as store:
        import_facts(store, parse_file(src), str(src))
        memory = Memory(store, trusted_config(), now)
        assert memory.row(0)["flags"] == ["signature_untrusted"]
        assert memory.row(0)["tier"] == "auto"


def test_export_then_import_reproduces_every_score(store_location, new_store, tmp_path, now):
    with Store.open(store_location, readonly=True) as store:
        exported = list(export_facts(store))
        before = Memory(store, trusted_config(), now).rows()
    assert exported[0]["x-extra"] == {"kept": True}
    assert exported[1]["reinforcement_count"] == 3 and "reinforced_at" not in exported[1]
    src = write_jsonl(tmp_path / "again.jsonl", exported)
    with Store.open(new_store("again"), create=True) as store:
        import_facts(store, parse_file(src), str(src))
        after = Memory(store, trusted_config(), now).rows()
        assert list(export_facts(store)) == exported
    assert after == before


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ('{"id": "x", "text": "t"}', "created_at", "is required"),
        ('{"id": "x", "text": "t", "created_at": "yesterday"}', "created_at", "RFC 3339"),
        ('{"id": "", "text": "t", "created_at": "2026-01-01T00:00:00Z"}', "id", "non-empty"),
        ('{"id": "x", "text": "t", "created_at": "2026-01-01T00:00:00Z", "tier": "admin"}', "tier", "one of"),
        (
            '{"id": "x", "text": "t", "created_at": "2026-01-01T00:00:00Z", "corroborations": -1}',
            "corroborations",
            ">= 0",
        ),
        (
            '{"id": "x", "text": "t", "created_at": "2026-01-01T00:00:00Z", "reinforcement_count": 0}',
            "reinforcement_count",
            ">= 1",
        ),
        (
            '{"id": "x", "text": "t", "created_at": "2026-01-01T00:00:00Z", "reinforced_at": ["soon"]}',
            "reinforced_at",
            "RFC 3339",
        ),
        (
            '{"id": "x", "text": "t", "created_at": "2026-01-01T00:00:00Z", "embedding": [0, 0]}',
            "embedding",
            "zero",
        ),
        (
            '{"id": "x", "text": "t", "created_at": "2026-01-01T00:00:00Z", "embedding": [1, NaN]}',
            "embedding",
            "NaN",
        ),
        (
            '{"id": "x", "text": "t", "created_at": "2026-01-01T00:00:00Z", "entities": "Maria"}',
            "entities",
            "list",
        ),
        ('{"id": "a", "text": "t", "created_at": "2026-01-01T00:00:00Z"}', "id", "already in the store"),
        (
            '{"id": "x", "text": "t", "created_at": "2026-01-01T00:00:00Z", "supersedes": "x"}',
            "supersedes",
            "cycle",
        ),
        ("[1, 2]", None, "JSON object"),
        (
            '{"id": "x", "text": "t",',
            None,
            "not valid JSON: the line ends (at column 24) before its value is closed",
        ),
    ],
)
def test_bad_line_names_file_line_field_and_changes_nothing(store_location, tmp_path, line, field, message):
    good = json.dumps({"id": "new1", "text": "fine", "created_at": "2026-01-01T00:00:00Z"})
    src = tmp_path / "bad.jsonl"
    src.write_text(good + "\n" + line + "\n", encoding="utf-8")
    before = mark(store_location)
    with pytest.raises(InputError) as info:
        with Store.open(store_location) as store:
            import_facts(store, parse_file(src), str(src))
    err = info.value
    assert (err.file, err.line, err.field) == (str(src), 2, field)
    assert message in str(err) and str(src) in str(err) and ":2:" in str(err)
    with Store.open(store_location, readonly=True) as store:
        assert store.count() == 5
    assert mark(store_location) == before


def test_a_clashing_id_names_the_store_as_shown(store_location, tmp_path):
    """The refusal names the store: a file's path, a server's location without its password
    (the session's server takes any: a URL holding one opens the store all the same)."""
    location = store_location.replace("://postgres:@", "://postgres:hunter2@")
    assert is_server(location) == ("hunter2" in location)
    src = write_jsonl(
        tmp_path / "clash.jsonl", [{"id": "a", "text": "t", "created_at": "2026-01-01T00:00:00Z"}]
    )
    with Store.open(location) as store, pytest.raises(InputError) as info:
        import_facts(store, parse_file(src), str(src))
    shown = store_location.replace("://postgres:@", "://postgres@")
    assert str(info.value) == f"{src}:1: field 'id': id 'a' is already in the store {shown}"


def test_cycle_across_the_store_is_refused(store_location, tmp_path):
    # a supersedes b would close a <- b <- a
    src = write_jsonl(
        tmp_path / "cyc.jsonl",
        [
            {"id": "z1", "text": "t", "created_at": "2026-01-01T00:00:00Z", "supersedes": "z2"},
            {"id": "z2", "text": "t", "created_at": "2026-01-01T00:00:00Z", "supersedes": "z1"},
        ],
    )
    with Store.open(store_location) as store, pytest.raises(InputError, match="cycle"):
        import_facts(store, parse_file(src), str(src))


def test_wrong_embedding_dimension_within_a_file(tmp_path):
    src = write_jsonl(
        tmp_path / "dim.jsonl",
        [
            {"id": "p", "text": "t", "created_at": "2026-01-01T00:00:00Z", "embedding": [1.0, 0.0, 0.0]},
            {"id": "q", "text": "t", "created_at": "2026-01-01T00:00:00Z", "embedding": [1.0, 0.0]},
        ],
    )
    with pytest.raises(InputError, match="dimension 2, but line 1 has 3") as info:
        parse_file(src)
    assert info.value.line == 2 and info.value.field == "embedding"


def test_not_our_database_is_refused(tmp_path):
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(StoreError, match="not a synapse-tui store"):
        Store.open(other)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="not a SQLite database, or corrupt"):
        Store.open(junk)
    with pytest.raises(StoreError, match="no such database"):
        Store.open(tmp_path / "missing.db")


def test_full_text_search_quotes_user_words(store_location):
    with Store.open(store_location, readonly=True) as store:
        pos, rel = store.search("billing")
        assert store.ids_at(pos.tolist()) == ["b"]
        pos, _ = store.search('"red AND NOT')  # FTS syntax in user text is just words
        assert len(pos) == 0


def test_timestamp_without_offset_is_utc_and_offsets_apply():
    assert parse_time("2026-01-01T00:00:00") == parse_time("2026-01-01T00:00:00Z")
    assert parse_time("2026-01-01T02:00:00+02:00") == parse_time("2026-01-01T00:00:00Z")
    with pytest.raises(ValueError):
        parse_time("2026-13-01T00:00:00Z")


BARE_ROW = (
    "INSERT INTO facts (id, text, created_at, created_ts, tier, sig_state, r, s, events)"
    " VALUES ('bare', 'put here by another program', '2026-12-01T00:00:00Z', 0, 'auto', 0, 0, 0, ?)"
)
NO_EVENTS = "error: fact 'bare' has no events (not even its creation): a row not written by synapse-tui;"


def test_a_row_another_program_wrote_without_events_is_named(store_path):
    """Every reader failed on it (an IndexError), or took the next fact's instants."""
    with sqlite3.connect(store_path) as conn:
        conn.execute(BARE_ROW, (b"",))
    for args in (("score", store_path), ("score", store_path, "--json"), ("show", store_path, "a")):
        got = run(*args, ok=False)
        assert got.exit_code == 2 and got.stderr.startswith(NO_EVENTS) and got.stderr.count("\n") == 1


def test_a_facts_detail_is_its_reads_asked_together(store_location, now):
    """`Detail` (its reads asked together (on a server: one round trip) answer what the
    store's single reads answer one by one: a superseded fact with history, and a fact that
    is not there."""
    from synapse_tui.core.base.clock import Clock
    from synapse_tui.core.review.triage import Action, Triage

    with Store.open(store_location) as store:
        Triage(store, Clock(now), "user:alice").apply(Action.CORROBORATE, ["a"])
        detail = store.ask(Detail("a"))
        assert isinstance(detail, FactDetail)
        assert detail.record == store.record("a") and detail.record.corroborations >= 1
        assert detail.superseded_by == store.superseded_by("a") == ["b"]
        assert [(h.action, h.actor) for h in detail.history] == [("corroborate", "user:alice")]
        assert detail.history == store.history("a")
        assert detail.embedding is None  # imported without an embedding, no graph built
        missing = store.ask(Detail("no-such-fact"))
        assert (missing.record, missing.superseded_by, missing.embedding, missing.history) == (
            None,
            [],
            None,
            [],
        )
