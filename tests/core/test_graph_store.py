"""The graph in the store: rebuild, incremental update, fingerprints, views, junk."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from synapse_tui.core.base.config import Config
from synapse_tui.core.graph import knn, lexical
from synapse_tui.core.graph.build import ensure_graph, load_edges, rebuild_graph, update_graph
from synapse_tui.core.graph.ego import ego_graph, whole_graph
from synapse_tui.core.graph.read import neighbours
from synapse_tui.core.review.junk import (
    exact_duplicates,
    near_duplicate_clusters,
    unsupported_mask,
)
from synapse_tui.core.store.db import SqliteStore
from synapse_tui.core.store.schema import migrate
from tests.core.graph_stores import add, as_store, config, edge_set

DAY = 86400.0


@pytest.fixture
def conn() -> sqlite3.Connection:
    c = sqlite3.connect(":memory:")
    migrate(c)
    return c


def test_edges_use_ids_and_matched_entity_forms(conn: sqlite3.Connection) -> None:
    add(conn, "b", "x", [1, 0, 0], note="n1", entities=("Paris", " France"))
    add(conn, "a", "y", [1, 0, 0], note="n1", entities=("paris",))
    add(conn, "c", "z", [0, 1, 0], note="n2", entities=("PARIS ", "france"))
    rebuild_graph(conn, config(k=1))
    edges = [e.to_json() for e in load_edges(as_store(conn))]
    assert edges == [
        {"kind": "semantic", "a": "a", "b": "b", "weight": 1.0},
        {"kind": "npmi", "a": "france", "b": "paris", "weight": 1.0},
    ]


def test_npmi_units_are_notes_and_lone_facts(conn: sqlite3.Connection) -> None:
    # Note n1 holds {A, B} across two facts; a note-less fact {A, B}; a note-less {C}.
    add(conn, "f1", "t", note="n1", entities=("A",))
    add(conn, "f2", "t", note="n1", entities=("B",))
    add(conn, "f3", "t", entities=("a", "b"))
    add(conn, "f4", "t", entities=("C",))
    rebuild_graph(conn, config())
    # N = 3 units, n_a = n_b = n_ab = 2: ln((2/3) / (4/9)) / -ln(2/3) = 1.
    npmi = [e for e in load_edges(as_store(conn)) if e.kind == "npmi"]
    assert [(e.a, e.b) for e in npmi] == [("a", "b")]
    assert npmi[0].weight == pytest.approx(1.0)


def test_facts_without_embeddings_get_a_separate_lexical_space(conn: sqlite3.Connection) -> None:
    add(conn, "m1", "alpha", [1, 0])
    add(conn, "m2", "alpha", [2, 0])
    add(conn, "l1", "the cat sat on the mat")
    add(conn, "l2", "the cat sat on the mat")
    add(conn, "l3", "something else entirely")
    rebuild_graph(conn, config(k=1))
    kinds = dict(conn.execute("SELECT pos, kind FROM embeddings"))
    assert kinds == {1: "model", 2: "model", 3: "lexical", 4: "lexical", 5: "lexical"}
    sem = {(e.a, e.b): e.space for e in load_edges(as_store(conn))}
    assert sem == {("m1", "m2"): "model", ("l1", "l2"): "lexical"}
    # the first space filled an empty table, its index built after the rows: it is there
    plan = " ".join(
        r[-1] for r in conn.execute("EXPLAIN QUERY PLAN SELECT a FROM semantic_edges WHERE b = 2")
    )
    assert "INDEX semantic_edges_b" in plan
    nb = neighbours(as_store(conn), "l1", config())
    assert [(s.id, s.lexical) for s in nb.semantic] == [("l2", True)]


def test_lexical_vectors_are_computed_not_stored(conn: sqlite3.Connection) -> None:
    """A fact without an embedding gets a marker row, not 1 KiB of vector; a store written
    by earlier builds, which kept the vectors, updates and rebuilds to the same graph."""
    for f in corpus(np.random.default_rng(6), 40):
        add(conn, *f)
    rebuild_graph(conn, config())
    assert {n for (n,) in conn.execute("SELECT length(vec) FROM embeddings WHERE kind = 'lexical'")} == {0}
    conn.commit()  # a backup waits for an open transaction
    older = sqlite3.connect(":memory:")
    conn.backup(older)
    rows = older.execute(
        "SELECT e.pos, f.text FROM embeddings e JOIN facts f USING (pos) WHERE e.kind = 'lexical'"
    ).fetchall()
    vecs = lexical.embed_texts([text for _, text in rows])
    older.executemany(
        "UPDATE embeddings SET vec = ? WHERE pos = ?",
        [(bytes(v), p) for (p, _), v in zip(rows, vecs, strict=True)],
    )
    assert not ensure_graph(older, config(), verify=True).changed  # the stored vectors' digest
    for c in (conn, older):
        for f in corpus(np.random.default_rng(7), 20, start=40):
            add(c, *f)
        assert "lexical" in update_graph(c, [], config()).extended
    graph = (
        "SELECT * FROM knn ORDER BY pos",
        "SELECT * FROM semantic_edges ORDER BY a, b",
        "SELECT * FROM meta WHERE key LIKE 'graph.%' ORDER BY key",
    )
    for again in (None, rebuild_graph):
        if again:
            again(older, config())
        for sql in graph:
            assert conn.execute(sql).fetchall() == older.execute(sql).fetchall()


def corpus(rng: np.random.Generator, n: int, start: int = 0) -> list[tuple]:
    centres = np.random.default_rng(5).standard_normal((6, 8))
    names = ["Ada", "ada ", "Bob", "Cy", "Dee", "Eve"]
    out = []
    for i in range(start, start + n):
        c = int(rng.integers(0, 6))
        vec = centres[c] + 0.4 * rng.standard_normal(8) if rng.random() < 0.8 else None
        ents = tuple(names[int(j)] for j in rng.choice(6, size=int(rng.integers(0, 3)), replace=False))
        note = f"n{int(rng.integers(0, n // 3 + 1))}" if rng.random() < 0.6 else None
        out.append((f"id{int(rng.integers(0, 99))}-{i}", f"fact {c} words {i % 7}", vec, note, ents))
    return out


@pytest.mark.parametrize("again", ["update", "rebuild"])
@pytest.mark.parametrize("seed", range(4))
def test_incremental_update_equals_full_rebuild(
    seed: int, again: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Facts added to a built store, then an update (or a rebuild, which searches the new
    facts' lexical vectors as computed after the stored ones): bit for bit the store that
    built every fact at once."""
    monkeypatch.setattr(knn, "ROW_BLOCK", 7)
    monkeypatch.setattr(knn, "COL_BLOCK", 11)
    rng = np.random.default_rng(seed)
    first, second = corpus(rng, 60), corpus(rng, 25, start=60)
    inc = sqlite3.connect(":memory:")
    full = sqlite3.connect(":memory:")
    for c in (inc, full):
        migrate(c)
    for f in first:
        add(inc, *f)
    rebuild_graph(inc, config())
    for f in second:
        add(inc, *f)
    if again == "update":
        result = update_graph(inc, [], config())
        assert set(result.extended) == {"model", "lexical"} and result.rebuilt == ("npmi",)
    else:
        result = rebuild_graph(inc, config())
        assert result.lexical_added == sum(f[2] is None for f in second) > 0
    for f in first + second:
        add(full, *f)
    rebuild_graph(full, config())
    assert edge_set(inc) == edge_set(full)
    for sql in (
        "SELECT * FROM embeddings ORDER BY pos",
        "SELECT * FROM knn ORDER BY pos",
        "SELECT * FROM semantic_edges ORDER BY a, b",  # bit for bit, not just rounded
        "SELECT * FROM npmi_edges ORDER BY a, b",
        "SELECT * FROM meta WHERE key LIKE 'graph.%' ORDER BY key",  # digests, PageRank
    ):
        assert inc.execute(sql).fetchall() == full.execute(sql).fetchall()
    # the digests added up batch by batch are the ones a full re-hash finds
    assert not ensure_graph(inc, config(), verify=True).changed


def test_ensure_graph_recomputes_nothing_when_nothing_changed(conn: sqlite3.Connection) -> None:
    for f in corpus(np.random.default_rng(1), 30):
        add(conn, *f)
    first = ensure_graph(conn, config())
    assert first.changed
    before = edge_set(conn)
    conn.execute("DELETE FROM semantic_edges")  # would be rebuilt if ensure_graph recomputed
    assert not ensure_graph(conn, config()).changed
    assert not ensure_graph(conn, config(), verify=True).changed
    assert edge_set(conn) != before
    assert ensure_graph(conn, config(k=4)).changed  # parameters are part of the fingerprint


def test_counting_a_space_reads_the_index_not_the_vectors(conn: sqlite3.Connection) -> None:
    """Every import counts each space's rows: at a million facts a scan of the table,
    whose rows carry the vectors, took seconds; the index (m004) holds only kind and pos."""
    from synapse_tui.core.graph.build import _space_states
    from synapse_tui.core.store.graph import SPACE_COUNTS, GraphTables

    for f in corpus(np.random.default_rng(4), 12):
        add(conn, *f)
    ensure_graph(conn, config())  # facts without a vector get their lexical one
    plan = " ".join(row[-1] for row in conn.execute(f"EXPLAIN QUERY PLAN {SPACE_COUNTS}"))
    assert "COVERING INDEX embeddings_kind" in plan
    states = _space_states(GraphTables(conn))
    assert states["model"]["count"] + states["lexical"]["count"] == 12
    assert max(states["model"]["max_pos"], states["lexical"]["max_pos"]) == 12


def test_ensure_graph_rebuilds_when_built_rows_changed(conn: sqlite3.Connection) -> None:
    for f in corpus(np.random.default_rng(2), 30):
        add(conn, *f)
    ensure_graph(conn, config())
    conn.execute("UPDATE embeddings SET vec = (SELECT vec FROM embeddings WHERE pos = 2) WHERE pos = 1")
    assert ensure_graph(conn, config()).rebuilt == ()  # append-only check is cheap ...
    assert ensure_graph(conn, config(), verify=True).rebuilt  # ... verify sees it


def test_growing_past_k_rebuilds_instead_of_extending(conn: sqlite3.Connection) -> None:
    add(conn, "a", "t", [1, 0])
    add(conn, "b", "t", [1, 0.1])
    ensure_graph(conn, config(k=3))
    add(conn, "c", "t", [1, 0.2])
    add(conn, "d", "t", [0, 1])
    assert "model" in ensure_graph(conn, config(k=3)).rebuilt
    assert conn.execute("SELECT length(nbrs) FROM knn WHERE pos = 1").fetchone()[0] == 12


def test_neighbours_and_ego_view(conn: sqlite3.Connection) -> None:
    add(conn, "f1", "Ada wrote notes", [1, 0, 0], note="n1", entities=("Ada", "Engine"))
    add(conn, "f2", "Ada and the engine", [1, 0.05, 0], note="n2", entities=("ada", "Engine"))
    add(conn, "f3", "Charles built it", [0.9, 0.3, 0], note="n3", entities=("Charles", "Engine"))
    add(conn, "f4", "unrelated", [0, 0, 1], note="n4", entities=("Other",))
    add(conn, "f5", "ada again", [0, 0.1, 1], note="n5", entities=("ADA",))
    rebuild_graph(conn, config(k=2))
    nb = neighbours(as_store(conn), "f1", config())
    assert [s.id for s in nb.semantic] == ["f2"]
    assert [(e.key, e.name) for e in nb.entities] == [("ada", "ADA"), ("engine", "Engine")]  # ties: smallest
    assert nb.to_json()["id"] == "f1"
    ego = ego_graph(conn, "f1", config())
    shared = {r.node: r.weight for r in ego.rows if r.section == "shared"}
    assert set(shared) == {"f3", "f5"}  # f2 is listed once, as a semantic neighbour
    # f3 shares Engine (3 facts name it), f5 shares Ada (3 facts too): one chain each
    assert shared["f3"] == pytest.approx(shared["f5"])
    assert shared["f3"] == pytest.approx((math.log1p(5 / 3) / math.log1p(5)) ** 2)
    with pytest.raises(KeyError):
        neighbours(as_store(conn), "nope", config())
    G = whole_graph(conn)
    assert G.edges[("fact", "f1"), ("fact", "f2")]["kind"] == "semantic"
    assert G.edges[("fact", "f1"), ("entity", "ada")]["kind"] == "mentions"
    assert {d["kind"] for *_, d in G.edges(data=True)} >= {"semantic", "mentions"}
    ranks = [d["pagerank"] for n, d in G.nodes(data=True) if d["kind"] == "entity"]
    assert sum(ranks) == pytest.approx(1.0)


def test_junk_detectors(conn: sqlite3.Connection) -> None:
    now = 200 * DAY
    add(conn, "a", "The  sky is blue", [1, 0, 0], created_ts=0.0)
    add(conn, "b", "the sky is BLUE", [1, 0, 0], created_ts=150 * DAY)
    add(conn, "c", "grass is green", [0, 1, 0], tier="human", created_ts=0.0)
    add(conn, "d", "grass is green!", [0, 1, 0.001], r=1, created_ts=0.0)
    add(conn, "e", "other", [0, 0, 1], created_ts=0.0)
    rebuild_graph(conn, config(k=1))
    store = SqliteStore(Path("test.db"), conn, readonly=True)
    assert exact_duplicates(store) == [("a", "b")]
    assert near_duplicate_clusters(store, config()) == [("a", "b"), ("c", "d")]
    ids, arrays = store.load(Config())
    mask = unsupported_mask(arrays, config(), now)
    assert [ids[i] for i in np.flatnonzero(mask)] == ["a", "e"]  # auto, uncorroborated, older


@pytest.mark.parametrize("seed", range(5))
def test_components_match_networkx(seed: int) -> None:
    import networkx as nx

    from synapse_tui.core.review.junk import _components

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    e = int(rng.integers(0, 2 * n))
    a, b = rng.integers(0, n, e), rng.integers(0, n, e)
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(a.tolist(), b.tolist(), strict=True))
    want = np.empty(n, dtype=np.int64)
    for comp in nx.connected_components(G):
        want[list(comp)] = min(comp)
    assert np.array_equal(_components(a, b, n), want)
