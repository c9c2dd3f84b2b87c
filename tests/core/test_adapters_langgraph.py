"""The LangGraph store reader, on SQLite files written by langgraph's own `SqliteStore`
(langgraph-checkpoint-sqlite, in the test extra), with LangMem's value shapes:
`{"content": str}` (its manage-memory tool) and `{"kind": ..., "content": {...}}` (its
memory manager). The PostgreSQL store is read in tests/postgres/test_langgraph_postgres.py."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from synapse_tui.core.base.clock import format_time, parse_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import known_facts
from synapse_tui.core.ingest.adapters import langgraph as lg
from synapse_tui.core.store.db import Store
from tests.cli_run import refused, run
from tests.core.basic_memory_files import sync
from tests.core.langgraph_files import put
from tests.store_state import exists, mark


def rows(path: Path) -> dict[str, tuple]:
    with sqlite3.connect(path) as conn:
        return {k: (u, e) for k, u, e in conn.execute("SELECT key, updated_at, expires_at FROM store")}


@pytest.fixture
def agent_store(tmp_path: Path) -> Path:
    return put(
        tmp_path / "store.db",
        ("k1", {"content": "Alice prefers green tea"}),
        ("k2", {"kind": "Memory", "content": {"content": "Alice's cat is called Bob"}}),
        ("k3", {"kind": "UserProfile", "content": {"name": "Alice", "city": "Lyon"}}),
        ("k4", {"content": "Alice is on holiday this week"}, 60),  # expires in an hour
    )


@pytest.fixture
def store(new_store):
    """An empty store on this test's backend (a file, a server: `tests/backends.py`)."""
    with Store.open(new_store("memory"), create=True) as s:
        yield s


def resync(store: Store, path: Path, **options):
    snap = lg.read(path, known=known_facts(store, "langgraph"), **options)
    return snap, sync(store, snap)


def by_text(snapshot) -> dict:
    return {f.text: f for f in snapshot.facts}


def test_rows_become_facts_with_langmem_text(agent_store):
    snap = lg.read(agent_store)
    facts = by_text(snap)
    assert set(facts) == {
        "Alice prefers green tea",
        "Alice's cat is called Bob",
        '{"city": "Lyon", "name": "Alice"}',
        "Alice is on holiday this week",
    }
    tea = facts["Alice prefers green tea"]
    updated, _ = rows(agent_store)["k1"]
    assert tea.id == "langgraph:memories.alice:k1" and tea.note == "memories.alice" and tea.tier == "auto"
    assert tea.created_at == format_time(parse_time(updated.replace(" ", "T") + "Z"))
    prov = tea.provenance
    assert prov["x-source"] == "langgraph" and prov["x-source-version"] == 1
    assert prov["x-langgraph-namespace"] == ["memories", "alice"] and prov["x-langgraph-key"] == "k1"
    assert prov["x-langgraph-time"] == "updated_at; creation unknown"
    assert facts["Alice's cat is called Bob"].provenance["x-langgraph-kind"] == "Memory"
    holiday = facts["Alice is on holiday this week"].provenance
    assert holiday["x-langgraph-ttl-minutes"] == 60 and holiday["x-langgraph-expires-at"]
    assert any(
        "1 value with no LangMem `content` text: the JSON is the fact's text" in line
        for line in snap.left_out
    )


def test_updates_are_versions_deletes_and_expiry_told_apart(agent_store, store):
    _, result = resync(store, agent_store)
    assert result.added == 4
    put(agent_store, ("k1", {"content": "Alice prefers oolong"}), delete=("k2",))
    _, expires = rows(agent_store)["k4"]
    later = parse_time(expires.replace(" ", "T")) + 60  # after k4's expires_at: TTL took it
    snap, result = resync(store, agent_store, now=later)
    assert (result.added, result.newly_deleted) == (1, 2)
    v2 = by_text(snap)["Alice prefers oolong"]
    assert v2.id == "langgraph:memories.alice:k1@2" and v2.supersedes == "langgraph:memories.alice:k1"
    assert v2.provenance["x-langgraph-time"] == "updated_at"
    assert any("1 record expired (TTL), not deleted by the agent" in line for line in snap.left_out)
    gone = {k.id for k in known_facts(store, "langgraph") if k.deleted}
    assert gone == {"langgraph:memories.alice:k2", "langgraph:memories.alice:k4"}
    why = dict(store._conn.execute("SELECT key, value FROM meta WHERE key LIKE 'deleted.why.%'"))
    assert why == {"deleted.why.langgraph:memories.alice:k4": '"expired"'}  # k2: the agent deleted it
    before = store._conn.total_changes
    _, result = resync(store, agent_store, now=later)
    assert (result.added, result.newly_deleted) == (0, 0) and store._conn.total_changes == before


def test_embeddings_only_with_a_model(agent_store):
    sqlite_vec = pytest.importorskip("sqlite_vec")
    from langgraph.store.sqlite.base import VECTOR_MIGRATIONS

    with sqlite3.connect(agent_store) as conn:  # as an indexed SqliteStore writes them
        conn.execute(VECTOR_MIGRATIONS[0])
        conn.execute(
            "INSERT INTO store_vectors (prefix, key, field_name, embedding) VALUES (?, ?, ?, ?)",
            ("memories.alice", "k1", "content", sqlite_vec.serialize_float32([0.6, 0.8, 0.0])),
        )
    plain = lg.read(agent_store)
    assert all(f.embedding is None for f in plain.facts) and plain.space is None
    assert any("--model NAME" in line for line in plain.left_out)
    named = lg.read(agent_store, model="text-embedding-3-small")
    tea = by_text(named)["Alice prefers green tea"]
    assert named.space == "text-embedding-3-small" and tea.embedding.tolist() == pytest.approx(
        [0.6, 0.8, 0.0]
    )


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: p, "no such file"),
        (lambda p: (p.write_text("hello"), p)[1], "not a SQLite database"),
        (
            lambda p: (sqlite3.connect(p).execute("CREATE TABLE t (x)").connection.commit(), p)[1],
            "has no `store`",
        ),
        (
            lambda p: (sqlite3.connect(p).execute("CREATE TABLE store (prefix, key)").connection.commit(), p)[
                1
            ],
            "lacks created_at, updated_at, value",
        ),
    ],
)
def test_a_file_that_is_not_a_langgraph_store_is_refused(tmp_path, make, expected):
    with pytest.raises(InputError, match=expected):
        lg.read(make(tmp_path / "x.db"))


def test_cli_imports_resyncs_and_refuses(agent_store, tmp_path, new_store):
    db = new_store("lg")
    out = json.loads(run("import", "--from", "langgraph", agent_store, "--db", db, "--json").stdout)
    assert (out["system"], out["added"]) == ("langgraph", 4)
    before = mark(db)
    again = run("import", "--from", "langgraph", agent_store, "--db", db)
    assert "0 added, 0 newly deleted, 0 re-asserted, 4 unchanged" in again.stdout and mark(db) == before
    shown = run("show", db, "langgraph:memories.alice:k1").stdout
    assert "from langgraph: record memories.alice:k1 version 1" in shown
    assert "langgraph does not record corroborations, contradictions, reinforcements, acceptance" in shown
    text = tmp_path / "notes.txt"
    text.write_text("not sqlite")
    new = new_store("new")
    line = refused("import", "--from", "langgraph", text, "--db", new)
    assert str(text) in line and "expected a LangGraph store" in line and not exists(new)
    server = f"postgresql://u:pw-1234@/db?host={tmp_path / 'no-server'}"  # a socket nobody listens on
    line = refused("import", "--from", "langgraph", server, "--db", new)
    assert "cannot connect to postgresql://u@/db" in line and "pw-1234" not in line
    assert not exists(new)


def test_an_expired_row_is_flagged_expired_not_deleted(agent_store, tmp_path, new_store):
    db = new_store("lg")
    run("import", "--from", "langgraph", agent_store, "--db", db)
    put(agent_store, delete=("k2",))
    _, expires = rows(agent_store)["k4"]
    later = format_time(parse_time(expires.replace(" ", "T")) + 60)
    run("import", "--from", "langgraph", agent_store, "--db", db, env={"SYNAPSE_NOW": later})
    scored = {
        s["id"]: s["flags"]
        for s in map(json.loads, run("score", db, "--json", "--now", later).stdout.splitlines())
    }
    assert scored["langgraph:memories.alice:k4"] == ["expired"]  # its TTL, not the agent
    assert scored["langgraph:memories.alice:k2"] == ["deleted"]
    found = run("score", db, "--json", "--now", later, "--where", "is:expired").stdout.splitlines()
    assert [json.loads(line)["id"] for line in found] == ["langgraph:memories.alice:k4"]
    # an export and import keep the reason: the copy says expired, not deleted by the agent
    exported = tmp_path / "lg.jsonl"
    run("export", db, "-o", exported)
    copy = new_store("copy")
    run("import", exported, "--db", copy)
    copied = {
        s["id"]: s["flags"]
        for s in map(json.loads, run("score", copy, "--json", "--now", later).stdout.splitlines())
    }
    assert copied == scored


ODD = [
    (("a",), "b:c", "a row whose key holds a colon"),
    (("a:b",), "c", "a row whose namespace label holds a colon"),
    (("n",), "k", "the first text of k"),
    (("n",), "k@2", "a key that ends like a version"),
    (("n",), "tab\tkey", "a key with a tab"),
    (("n", "line\nbreak"), "k", "a namespace label with a newline"),
    (("n",), "100%", "a key with a percent sign"),
    (("n",), "alice@example.com", "an e-mail address as key"),
]


def odd_store(path: Path, *items: tuple) -> Path:
    """Odd keys and namespaces LangGraph's SqliteStore accepts (its namespace labels refuse
    only `.`, NUL and empty strings; its keys refuse nothing)."""
    with lg_store(path) as s:
        s.setup()
        for ns, key, text in items or ODD:
            s.put(ns, key, {"content": text})
    return path


def lg_store(path: Path):
    from tests.core.langgraph_files import SqliteStore

    return SqliteStore.from_conn_string(str(path))


def test_odd_keys_and_namespaces_each_become_one_fact(tmp_path, store):
    path = odd_store(tmp_path / "odd.db")
    snap = lg.read(path)
    assert sorted(f.text for f in snap.facts) == sorted(t for _, _, t in ODD)
    assert len({f.id for f in snap.facts}) == len(ODD)
    sync(store, snap)
    assert sorted(k.text for k in known_facts(store, "langgraph")) == sorted(t for _, _, t in ODD)
    plain = {f.text: f.id for f in snap.facts}
    assert plain["an e-mail address as key"] == "langgraph:n:alice@example.com"  # ordinary ids unchanged
    odd_store(path, (("n",), "k", "the second text of k"))
    again, result = resync(store, path)
    assert [(f.text, f.supersedes) for f in again.facts] == [
        ("the second text of k", plain["the first text of k"])
    ]
    assert not again.deleted and result.added == 1
    texts = {k.id: k.text for k in known_facts(store, "langgraph")}
    assert texts[plain["a key that ends like a version"]] == "a key that ends like a version"
    assert len(texts) == len(ODD) + 1
