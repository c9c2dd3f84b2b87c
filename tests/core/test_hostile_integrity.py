"""Integrity under hostile input, in the core (issue 22, points 7 to 13): sources that
repeat themselves, round trips that must keep what they carry, stores that are damaged or
only half writable. Real SQLite files, sources in each system's documented shape."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import InputError, PartialWrite
from synapse_tui.core.graph import embed as embedder
from synapse_tui.core.graph.build import ensure_graph
from synapse_tui.core.ingest.adapters import graphiti, mem0
from synapse_tui.core.ingest.adapters.sync import sync_snapshot
from synapse_tui.core.ingest.interchange import import_facts, landed_facts, link_landed, parse_file
from synapse_tui.core.review import query as fq
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.errors import describe, is_internal
from tests.core.graph_stores import fake_model
from tests.core.graphiti_files import ACME, ALICE, facts_of
from tests.core.graphiti_files import dump as gdump
from tests.core.graphiti_files import edge as gedge
from tests.core.mem0_files import ev, merged_history, story, write_history
from tests.helpers import NOW


@pytest.fixture(autouse=True)
def _no_home_mem0(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


# -- 8. a mem0 history holding its rows twice -----------------------------------------------


def texts(snapshot) -> dict[str, str]:
    return {f.id: f.text for f in snapshot.facts}


def test_a_history_holding_its_rows_twice_reads_each_record_once(tmp_path):
    once = mem0.read(write_history(tmp_path / "once.db", story()))
    twice = mem0.read(merged_history(tmp_path / "twice.db", story() + story()))
    assert texts(twice) == texts(once)  # no invented versions; coffee is still the head
    assert texts(twice)["mem0:m-tea@2"] == "Alice likes coffee" and "mem0:m-tea@3" not in texts(twice)
    assert twice.deleted == once.deleted
    assert any("5 history records appear twice" in line for line in twice.left_out)


def test_a_conflicting_duplicate_history_record_is_refused_by_its_id(tmp_path):
    forged = ev("m-tea", "UPDATE", "Alice likes cocoa", old="Alice likes tea", updated="2025-06-02T00:00:00Z")
    forged["id"] = "h4"
    path = merged_history(tmp_path / "history.db", [*story(), forged])
    with pytest.raises(InputError, match="history record 'h4'.*appears twice with different content"):
        mem0.read(path)


# -- 10. Graphiti: a successor only when exactly one edge fits -----------------------------


def graphiti_dump(folder, *later):
    """e-old (Alice works at Acme) invalidated at 2025-05-01, and the `later` edges."""
    old = gedge(
        "e-old",
        "Alice works at Acme",
        ALICE,
        ACME,
        "2025-01-02T00:00:00Z",
        valid_at="2025-01-01T00:00:00Z",
        invalid_at="2025-05-01T00:00:00Z",
        expired_at="2025-05-02T10:00:00Z",
    )
    return gdump(folder, edges=[old, *later])


def test_one_newer_edge_starting_at_invalid_at_is_the_successor(tmp_path):
    new = gedge(
        "e-new", "Alice left Acme", ACME, ALICE, "2025-05-02T09:00:00Z", valid_at="2025-05-01T00:00:00Z"
    )
    other = gedge("e-other", "Alice visits Acme", ALICE, ACME, "2025-05-02T09:30:00Z")  # no valid_at
    facts = facts_of(graphiti.read(graphiti_dump(tmp_path / "g", new, other)))
    assert facts["graphiti:e-new"].supersedes == "graphiti:e-old"
    assert facts["graphiti:e-other"].supersedes is None
    assert "x-invalidated-at" not in facts["graphiti:e-old"].provenance


@pytest.mark.parametrize(
    "later",
    [
        [  # two newer edges between Alice and Acme, one each way, both start at invalid_at
            ("e-a", "Alice left Acme", ACME, ALICE, "2025-05-02T09:00:00Z", "2025-05-01T00:00:00Z"),
            ("e-b", "Alice quit Acme", ALICE, ACME, "2025-05-02T09:30:00Z", "2025-05-01T00:00:00Z"),
        ],
        [  # one newer edge, but it does not start at invalid_at: it is not known to have done it
            ("e-a", "Alice visits Acme", ACME, ALICE, "2025-05-02T09:00:00Z", None),
        ],
    ],
    ids=["several-fit", "none-fits"],
)
def test_no_successor_is_guessed_the_old_fact_stays_invalidated(tmp_path, later):
    edges = [gedge(u, text, a, b, at, valid_at=valid) for u, text, a, b, at, valid in later]
    snap = graphiti.read(graphiti_dump(tmp_path / "g", *edges))
    facts = facts_of(snap)
    assert not any(f.supersedes for f in snap.facts)
    assert facts["graphiti:e-old"].provenance["x-invalidated-at"] == "2025-05-01T00:00:00Z"
    assert any("invalidated" in line and "no successor named" in line for line in snap.left_out)

    with Store.open(tmp_path / "m.db", create=True) as store:
        sync_snapshot(store, snap, Config())
        memory = Memory(store, Config(), parse_time(NOW))
        assert memory.explain("graphiti:e-old")["flags"] == ["invalidated"]
        assert memory.explain("graphiti:" + edges[0]["uuid"])["flags"] == []
        for query in ("flag:invalidated", "is:invalidated"):
            assert [memory.ids[i] for i in fq.run(memory, fq.parse(query))] == ["graphiti:e-old"]


# -- 11. what a sync wrote is said when its graph step fails ----------------------------------


def test_a_sync_whose_graph_step_fails_says_what_landed(tmp_path, monkeypatch):
    import synapse_tui.core.graph.build as build

    def full_disk(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(build, "update_graph", full_disk)
    snap = mem0.read(write_history(tmp_path / "history.db", story()))
    with Store.open(tmp_path / "m.db", create=True) as store:
        with pytest.raises(PartialWrite, match="4 facts added, 1 flagged deleted, 0 re-asserted") as exc:
            sync_snapshot(store, snap, Config())
        assert "could not be read or written (database or disk is full)" in str(exc.value)
        assert "corrupt" not in str(exc.value)
        assert store.count() == 4


# -- 12. embed: the vectors and the graph built on them land together --------------------------


def lexical_store(tmp_path, n=400):
    """A store imported without embeddings: its graph is the lexical one."""
    tmp_path.mkdir(exist_ok=True)
    src = tmp_path / "f.jsonl"
    src.write_text(
        "".join(
            json.dumps(
                {"id": f"f{i}", "text": f"fact {i} about topic {i % 13} and {i % 7}", "created_at": NOW}
            )
            + "\n"
            for i in range(n)
        )
    )
    store = Store.open(tmp_path / "m.db", create=True)
    result = import_facts(store, parse_file(src), str(src))
    link_landed(store, Config(), landed_facts(result.imported))
    return store


def edge_kinds(store) -> dict[str, int]:
    return dict(store._conn.execute("SELECT kind, count(*) FROM semantic_edges GROUP BY kind"))


def test_the_graph_rebuilds_after_model_embeddings_replace_lexical_ones(tmp_path):
    store = lexical_store(tmp_path)
    assert set(edge_kinds(store)) == {"lexical"}
    todo = store._conn.execute("SELECT pos, text FROM facts ORDER BY pos").fetchall()
    vecs = fake_model([t for _, t in todo])
    with store.transaction() as conn:  # as embed_store writes them
        conn.executemany(
            "INSERT OR REPLACE INTO embeddings (pos, kind, vec) VALUES (?, 'model', ?)",
            [(p, bytes(v.astype(np.float32))) for (p, _), v in zip(todo, vecs, strict=True)],
        )
        embedder.record_model(conn)
    with store.transaction() as conn:
        update = ensure_graph(conn, Config())  # UNIQUE constraint failed: semantic_edges.a, .b
    assert "lexical" in update.rebuilt
    kinds = edge_kinds(store)
    assert set(kinds) == {"model"} and kinds["model"] > 0
    store.close()


def test_embed_lands_vectors_and_graph_together_and_a_rerun_finishes_a_stuck_store(tmp_path, monkeypatch):
    monkeypatch.setattr(embedder, "encode", fake_model)
    store = lexical_store(tmp_path)

    def broken(*args, **kwargs):
        raise sqlite3.IntegrityError("UNIQUE constraint failed: semantic_edges.a, semantic_edges.b")

    monkeypatch.setattr(embedder, "update_graph", broken)  # the graph step, failing after the vectors
    with pytest.raises(sqlite3.IntegrityError):
        embedder.embed_store(store, Config())
    assert store._conn.execute("SELECT count(*) FROM embeddings WHERE kind = 'model'").fetchone()[0] == 0
    monkeypatch.undo()
    monkeypatch.setattr(embedder, "encode", fake_model)

    result = embedder.embed_store(store, Config())
    assert result.embedded == 400 and set(edge_kinds(store)) == {"model"}

    # a store an older version left stuck: the vectors in, the graph still the lexical one
    stuck = lexical_store(tmp_path / "old")
    todo = stuck._conn.execute("SELECT pos, text FROM facts ORDER BY pos").fetchall()
    with stuck.transaction() as conn:
        conn.executemany(
            "INSERT OR REPLACE INTO embeddings (pos, kind, vec) VALUES (?, 'model', ?)",
            [
                (p, bytes(v.astype(np.float32)))
                for (p, _), v in zip(todo, fake_model([t for _, t in todo]), strict=True)
            ],
        )
        embedder.record_model(conn)
    again = embedder.embed_store(stuck, Config())
    assert again.embedded == 0 and again.graph is not None and again.graph.changed
    assert set(edge_kinds(stuck)) == {"model"}
    stuck.close()
    store.close()


def test_a_constraint_of_ours_is_an_internal_error_never_corruption():
    exc = sqlite3.IntegrityError("UNIQUE constraint failed: semantic_edges.a, semantic_edges.b")
    assert is_internal(exc)
    assert describe(exc).startswith("internal error, please report it") and "corrupt" not in describe(exc)
    assert "corrupt" in describe(sqlite3.DatabaseError("database disk image is malformed"))
