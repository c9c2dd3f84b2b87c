"""mem0's files read into a store and kept in step (SPEC 9), on real SQLite files."""

from __future__ import annotations

import json
import sqlite3
import uuid

import numpy as np
import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.base.provenance import source_info
from synapse_tui.core.ingest.adapters import fact_id, mem0
from synapse_tui.core.ingest.interchange import export_facts
from synapse_tui.core.review import query as fq
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.triage import Triage, export_audit
from synapse_tui.core.store.db import Store
from tests.core.mem0_files import ev, story, sync, write_history, write_ts_vectors
from tests.helpers import NOW
from tests.store_state import mark


@pytest.fixture(autouse=True)
def _no_home_mem0(tmp_path, monkeypatch):
    """The TypeScript SDK's default ~/.mem0 on this machine must not leak into a test."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def by_id(snapshot):
    return {f.id: f for f in snapshot.facts}


def test_versions_become_a_chain_in_utc(tmp_path):
    snap = mem0.read(write_history(tmp_path / "history.db", story()))
    facts = by_id(snap)
    assert list(facts) == ["mem0:m-tea", "mem0:m-tea@2", "mem0:m-paris", "mem0:m-dog"]
    tea, coffee = facts["mem0:m-tea"], facts["mem0:m-tea@2"]
    # the ADD's local Pacific time converted to UTC, the fraction kept
    assert tea.created_at == "2025-03-01T17:00:00.250000Z"
    assert tea.provenance["x-mem0-created-at"] == "2025-03-01T09:00:00.250000-08:00"
    # an UPDATE's instant is its updated_at, not the memory's creation
    assert coffee.created_at == "2025-06-01T17:30:00Z" and coffee.supersedes == "mem0:m-tea"
    assert coffee.provenance == {
        "x-source": "mem0",
        "x-source-id": "m-tea",
        "x-source-version": 2,
        "x-mem0-history-id": "h4",
        "x-mem0-event": "UPDATE",
        "x-mem0-updated-at": "2025-06-01T10:30:00-07:00",
        "x-mem0-actor-id": "alice",
        "x-mem0-role": "user",
    }
    # nothing invented: no corroboration, contradiction, reinforcement or acceptance
    assert all(f.r == 0 and f.s == 0 and f.tier == "auto" and not f.reinforced_ts for f in snap.facts)
    assert snap.deleted == {"mem0:m-paris"}
    assert len(snap.left_out) == 1 and "no vector store named" in snap.left_out[0]


def test_metadata_only_update_is_not_a_new_version(tmp_path):
    events = story() + [ev("m-dog", "UPDATE", "Alice has a dog named Rex", old="Alice has a dog named Rex",
                           updated="2025-08-01T00:00:00Z")]  # fmt: skip
    facts = by_id(mem0.read(write_history(tmp_path / "h.db", events)))
    assert "mem0:m-dog@2" not in facts


@pytest.mark.parametrize("shape", ["legacy", "first", "ts"])
def test_older_and_typescript_tables_give_the_same_chain(tmp_path, shape):
    now = mem0.read(write_history(tmp_path / "now.db", story()))
    other = mem0.read(write_history(tmp_path / f"{shape}.db", story(), shape))
    assert [(f.id, f.text, f.supersedes) for f in other.facts] == [
        (f.id, f.text, f.supersedes) for f in now.facts
    ]
    assert other.deleted == {"mem0:m-paris"}
    coffee = by_id(other)["mem0:m-tea@2"]
    assert coffee.created_at == "2025-06-01T17:30:00Z"
    assert "x-mem0-actor-id" not in coffee.provenance  # those tables never had actor_id


def test_legacy_rows_migrated_from_the_first_sdk_keep_their_text(tmp_path):
    """The legacy table's own migration copied prev_value/new_value into old_memory and
    new_value; rows written later have new_memory only."""
    path = write_history(tmp_path / "h.db", story(), "legacy")
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO history (id, memory_id, old_memory, new_memory, new_value, event, created_at, updated_at,"
        " is_deleted) VALUES ('old1', 'm-old', NULL, NULL, 'Alice was born in 1990', 'ADD',"
        " '2024-01-01 08:00:00', '2024-01-01 08:00:00', 0)"
    )
    conn.commit()
    conn.close()
    facts = by_id(mem0.read(path))
    assert facts["mem0:m-old"].text == "Alice was born in 1990"
    assert facts["mem0:m-old"].created_at == "2024-01-01T08:00:00Z"  # no offset: UTC (SPEC 1)


def test_typescript_vectors_give_note_entities_and_the_current_embedding(tmp_path):
    history = write_history(tmp_path / "history.db", story(), "ts")
    v_tea, v_dog = [0.1] * 8, [0.0] * 7 + [1.0]
    write_ts_vectors(
        tmp_path / "vector_store_memories.db",
        {
            "m-tea": (
                v_tea,
                {
                    "data": "Alice likes coffee",
                    "userId": "alice",
                    "runId": "trip-42",
                    "category": "drinks",
                    "expiration_date": "2027-01-01",
                    "textLemmatized": "alice like coffee",  # the TS SDK's own key, not metadata
                    "createdAt": "2025-03-01T17:00:00Z",
                },
            ),
            "m-dog": (v_dog, {"data": "Alice has a dog named Rex", "user_id": "alice", "agent_id": "pets"}),
        },
    )  # fmt: skip
    write_ts_vectors(
        tmp_path / "vector_store_memories_entities.db",
        {"e1": ([1.0] * 8, {"data": "Rex", "entity_type": "PET", "linked_memory_ids": ["m-dog"]})},
    )
    snap = mem0.read(history)  # found beside history.db, where the TS SDK puts it
    facts = by_id(snap)
    coffee, tea, dog = facts["mem0:m-tea@2"], facts["mem0:m-tea"], facts["mem0:m-dog"]
    assert coffee.note == "trip-42" and dog.note == "alice"  # run_id, else user_id
    assert coffee.provenance["x-mem0-user-id"] == "alice" and coffee.provenance["x-mem0-run-id"] == "trip-42"
    assert coffee.provenance["x-mem0-metadata"] == {"category": "drinks"}
    assert coffee.provenance["x-mem0-expiration-date"] == "2027-01-01"
    assert dog.entities == ["Rex"] and dog.provenance["x-mem0-agent-id"] == "pets"
    # the embedding belongs to the current text only
    assert tea.embedding is None
    assert np.allclose(coffee.embedding, np.asarray(v_tea) / np.linalg.norm(v_tea))
    assert np.allclose(dog.embedding, v_dog)
    assert snap.left_out == []


def test_a_stale_vector_is_not_given_to_another_text(tmp_path):
    history = write_history(tmp_path / "history.db", story())
    vectors = write_ts_vectors(tmp_path / "v.db", {"m-tea": ([1.0, 0.0], {"data": "Alice likes tea"})})
    snap = mem0.read(history, vectors=vectors)
    assert by_id(snap)["mem0:m-tea@2"].embedding is None
    assert any("text differs" in line for line in snap.left_out)


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: p.write_text("not a database at all, just text\n" * 50), "not a SQLite database"),
        (lambda p: sqlite3.connect(p).execute("CREATE TABLE notes (id, body)"), "no mem0 history"),
        (lambda p: sqlite3.connect(p).execute("CREATE TABLE history (id, page, visited_at)"), "table history has columns"),
        (lambda p: None, "no such file"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_mem0s_is_refused(tmp_path, make, expected):
    path = tmp_path / "history.db"
    make(path)
    with pytest.raises(InputError, match=expected) as err:
        mem0.read(path)
    assert str(path) in str(err.value) and "expected mem0's history.db" in str(err.value)


def test_a_synapse_store_is_not_mem0s_history(tmp_path):
    Store.open(tmp_path / "memory.db", create=True).close()
    with pytest.raises(InputError, match="no mem0 history"):
        mem0.read(tmp_path / "memory.db")


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        (ev("m-x", "UPDATE", "text", updated="yesterday", hid="bad1"), "updated_at"),
        (ev("m-x", "ADD", "text", created=None, hid="bad1"), "created_at"),
        (ev("m-x", "ADD", None, created="2025-01-01T00:00:00Z", hid="bad1"), "new_memory"),
        (ev("m-x", "MERGE", "text", created="2025-01-01T00:00:00Z", hid="bad1"), "event"),
    ],
)
def test_a_malformed_record_is_named_with_its_field(tmp_path, bad, field):
    with pytest.raises(InputError) as err:
        mem0.read(write_history(tmp_path / "h.db", [*story(), bad]))
    assert "history record 'bad1'" in str(err.value) and f"field '{field}'" in str(err.value)


# -- sync ------------------------------------------------------------------------------


def state(store_path):
    with Store.open(store_path, readonly=True) as store:
        return list(export_facts(store)), list(export_audit(store))


def test_sync_is_idempotent(tmp_path, new_store):
    history = write_history(tmp_path / "history.db", story())
    db = new_store("memory")
    first = sync(db, history)
    # each fact once, as the second run counts them: m-paris arrives deleted
    assert (first.added, first.newly_deleted, first.unchanged) == (3, 1, 0)
    before = state(db)
    data_before = mark(db)
    again = sync(db, history)
    assert (again.added, again.newly_deleted, again.unchanged) == (0, 0, 4)
    assert state(db) == before
    assert mark(db) == data_before  # not one byte (not one row) written


def test_incremental_sync_keeps_triage_done_here(tmp_path, new_store):
    history = write_history(tmp_path / "history.db", story())
    db = new_store("memory")
    sync(db, history)
    with Store.open(db) as store:
        triage = Triage(store, Clock(parse_time(NOW)), actor="user:tester")
        triage.apply("corroborate", ["mem0:m-tea@2"])
        triage.apply("accept", ["mem0:m-dog"])
    # the agent keeps writing: a new memory, an edit, a deletion
    write_history(
        history,
        [
            ev("m-cat", "ADD", "Alice adopted a cat", created="2026-01-05T12:00:00Z"),
            ev("m-tea", "UPDATE", "Alice likes green tea", old="Alice likes coffee",
               created="2025-03-01T17:00:00Z", updated="2026-02-01T09:00:00Z"),
            ev("m-dog", "DELETE", old="Alice has a dog named Rex", updated="2026-03-01T00:00:00Z"),
        ],
    )  # fmt: skip
    result = sync(db, history)
    # each of the 6 facts once: m-dog is newly deleted, not unchanged too
    assert (result.added, result.newly_deleted, result.unchanged) == (2, 1, 3)
    with Store.open(db, readonly=True) as store:
        coffee, dog, green = (store.record(i) for i in ("mem0:m-tea@2", "mem0:m-dog", "mem0:m-tea@3"))
        assert coffee.corroborations == 1 and len(coffee.reinforced_at) == 1  # kept
        assert dog.tier == "human"  # kept
        assert green.supersedes == "mem0:m-tea@2" and green.corroborations == 0
        memory = Memory(store, Config(), parse_time(NOW))
        deleted = {memory.ids[i] for i in fq.run(memory, fq.parse("is:deleted"))}
        assert deleted == {"mem0:m-paris", "mem0:m-dog"}
        assert "deleted" in memory.row(memory.index["mem0:m-dog"])["flags"]
        assert [h["action"] for h in memory.explain("mem0:m-dog")["history"]] == ["accept"]


def test_a_refused_sync_changes_nothing(tmp_path, new_store):
    history = write_history(tmp_path / "history.db", story())
    db = new_store("memory")
    sync(db, history)
    before = state(db)
    write_history(history, [ev("m-new", "ADD", "fine", created="2026-01-01T00:00:00Z"),
                            ev("m-bad", "UPDATE", "broken", updated="not a time", hid="bad9")])  # fmt: skip
    with pytest.raises(InputError, match="bad9"):
        sync(db, history)
    assert state(db) == before


def test_explain_says_where_a_fact_came_from(tmp_path, new_store):
    db = new_store("memory")
    sync(db, write_history(tmp_path / "history.db", story()))
    with Store.open(db, readonly=True) as store:
        info = Memory(store, Config(), parse_time(NOW)).explain("mem0:m-tea@2")
    assert info["source"] == {
        "system": "mem0",
        "record": "m-tea",
        "version": 2,
        "author": "alice (user)",
        "unrecorded": ["corroborations", "contradictions", "reinforcements", "acceptance"],
    }
    assert source_info(None) is None and source_info({"x-ai-agent": "scout"}) is None
    assert fact_id("mem0", "m-tea", 2) == "mem0:m-tea@2"


# -- Qdrant ------------------------------------------------------------------------------


def test_a_locked_local_qdrant_is_read_through_a_copy(tmp_path):
    qc = pytest.importorskip("qdrant_client")
    from qdrant_client.models import Distance, PointStruct, VectorParams

    folder = tmp_path / "qdrant"
    client = qc.QdrantClient(path=str(folder))  # stays open: the folder is locked, like a running mem0
    client.create_collection("mem0", vectors_config=VectorParams(size=4, distance=Distance.COSINE))
    client.create_collection("mem0_entities", vectors_config=VectorParams(size=4, distance=Distance.COSINE))
    ids = {m: str(uuid.uuid5(uuid.NAMESPACE_URL, m)) for m in ("tea", "dog", "rex")}
    client.upsert("mem0", [
        PointStruct(id=ids["tea"], vector=[1, 0, 0, 0], payload={"data": "Alice likes coffee", "user_id": "alice",
                    "actor_id": "alice", "role": "user", "hash": "x", "created_at": "2025-03-01T09:00:00-08:00"}),
        PointStruct(id=ids["dog"], vector=[0, 1, 1, 0], payload={"data": "Alice has a dog named Rex",
                    "user_id": "alice", "run_id": "r1", "mood": "happy"}),
    ])  # fmt: skip
    client.upsert("mem0_entities", [PointStruct(id=ids["rex"], vector=[0, 0, 1, 0],
                  payload={"data": "Rex", "entity_type": "PET", "linked_memory_ids": [ids["dog"]]})])  # fmt: skip
    events = [
        ev(
            ids["tea"],
            "ADD",
            "Alice likes tea",
            created="2025-03-01T09:00:00-08:00",
            actor="alice",
            role="user",
        ),
        ev(ids["tea"], "UPDATE", "Alice likes coffee", old="Alice likes tea", updated="2025-06-01T00:00:00Z"),
        ev(ids["dog"], "ADD", "Alice has a dog named Rex", created="2025-03-03T11:00:00-08:00"),
    ]
    files_before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    snap = mem0.read(write_history(tmp_path / "history.db", events), vectors=folder)
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == files_before  # only read
    client.close()
    facts = by_id(snap)
    coffee, dog = facts[f"mem0:{ids['tea']}@2"], facts[f"mem0:{ids['dog']}"]
    assert np.allclose(coffee.embedding, [1, 0, 0, 0]) and facts[f"mem0:{ids['tea']}"].embedding is None
    assert np.allclose(dog.embedding, np.array([0, 1, 1, 0]) / np.sqrt(2))
    assert dog.entities == ["Rex"] and dog.note == "r1" and coffee.note == "alice"
    assert dog.provenance["x-mem0-metadata"] == {"mood": "happy"}
    assert snap.left_out == []


# -- FAISS -------------------------------------------------------------------------------


def faiss_folder(folder, vectors: dict[str, list[float]], payloads: dict[str, dict]):
    """mem0's FAISS layout (vector_stores/faiss.py _save): <collection>.faiss + .json docstore."""
    folder.mkdir()
    order = list(vectors)
    data = {"docstore": payloads, "index_to_id": {str(i): m for i, m in enumerate(order)}}
    (folder / "mem0.json").write_text(json.dumps(data, indent=2))
    return folder, np.asarray([vectors[m] for m in order], dtype=np.float32)


def test_faiss_docstore_gives_payloads_without_any_extra(tmp_path):
    folder, _ = faiss_folder(
        tmp_path / "faiss",
        {"m-dog": [0.0, 1.0]},
        {"m-dog": {"data": "Alice has a dog named Rex", "user_id": "alice", "run_id": "r9"}},
    )
    (folder / "mem0.faiss").write_bytes(b"IHNf" + bytes(60))  # an index type we do not read
    snap = mem0.read(write_history(tmp_path / "history.db", story()), vectors=folder)
    dog = by_id(snap)["mem0:m-dog"]
    assert dog.note == "r9" and dog.embedding is None
    assert any("not a flat FAISS index" in line for line in snap.left_out)


def test_faiss_flat_index_vectors_are_carried_over(tmp_path):
    faiss = pytest.importorskip("faiss")
    folder, matrix = faiss_folder(
        tmp_path / "faiss",
        {"m-dog": [0.6, 0.8, 0.0], "m-tea": [0.0, 0.0, 1.0]},
        {"m-dog": {"data": "Alice has a dog named Rex"}, "m-tea": {"data": "Alice likes coffee"}},
    )
    index = faiss.IndexFlatIP(3)  # what mem0 creates for cosine
    index.add(matrix)
    faiss.write_index(index, str(folder / "mem0.faiss"))
    snap = mem0.read(write_history(tmp_path / "history.db", story()), vectors=folder)
    facts = by_id(snap)
    assert np.allclose(facts["mem0:m-dog"].embedding, [0.6, 0.8, 0.0], atol=1e-6)
    assert np.allclose(facts["mem0:m-tea@2"].embedding, [0, 0, 1]) and facts["mem0:m-tea"].embedding is None
    assert snap.left_out == []


@pytest.mark.parametrize(
    "meta", ['{"collections": ["mem0"], "aliases": {}}', '{"collections": {"mem0": 1}}', "not json at all"]
)
def test_a_damaged_qdrant_folder_is_refused_in_one_line(tmp_path, meta):
    (tmp_path / "qdrant").mkdir()
    (tmp_path / "qdrant" / "meta.json").write_text(meta)
    with pytest.raises(InputError, match="Qdrant cannot open this folder") as err:
        mem0.read(write_history(tmp_path / "history.db", story()), vectors=tmp_path / "qdrant")
    assert "\n" not in str(err.value)


def test_a_qdrant_folder_of_several_collections_names_them(tmp_path):
    qc = pytest.importorskip("qdrant_client")
    from qdrant_client.models import Distance, PointStruct, VectorParams

    folder = tmp_path / "qdrant"
    client = qc.QdrantClient(path=str(folder))
    for name in ("work", "home"):
        client.create_collection(name, vectors_config=VectorParams(size=2, distance=Distance.COSINE))
    dog = str(uuid.uuid5(uuid.NAMESPACE_URL, "dog"))
    client.upsert("home", [PointStruct(id=dog, vector=[1, 0], payload={"data": "Rex", "user_id": "alice"})])
    client.close()
    history = write_history(tmp_path / "history.db", [ev(dog, "ADD", "Rex", created="2025-01-01T00:00:00Z")])
    with pytest.raises(InputError, match="no collection 'mem0' among home, work; to read another, give"):
        mem0.read(history, vectors=folder)
    fact = mem0.read(history, vectors=folder / "collection" / "home").facts[0]
    assert fact.note == "alice" and np.allclose(fact.embedding, [1, 0])


def test_progress_reports_the_memories_mapped(tmp_path):
    events = [ev(f"m-{i}", "ADD", f"memory {i}", created="2025-01-01T00:00:00Z") for i in range(4500)]
    calls = []
    mem0.read(write_history(tmp_path / "history.db", events), progress=lambda d, t: calls.append((d, t)))
    assert calls == [(0, 4500), (2000, 4500), (4000, 4500), (4500, 4500)]  # every 2,000, and the end
