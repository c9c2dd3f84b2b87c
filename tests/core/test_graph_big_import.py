"""An import into a store that already has its graph and the files beside it (issue 37,
point 11): its memory grows with the rows, never with their square, and its edges are the
ones a full build of every fact gives, whether the new rows are few (the append searches
them) or as many as the store's (the space is built anew)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from synapse_tui.core.graph import cache as graphcache
from synapse_tui.core.graph.build import rebuild_is_cheaper, update_graph
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from tests.core.graph_stores import clustered, config, edge_set
from tests.helpers import write_jsonl


@pytest.fixture(autouse=True)
def files_for_small_stores(monkeypatch: pytest.MonkeyPatch) -> None:
    """The graph folder for a space of any size (a test store is far below MIN_ROWS)."""
    monkeypatch.setattr(graphcache, "MIN_ROWS", 0)


def facts(X: np.ndarray, start: int) -> list[dict]:
    """Facts with a model embedding, and every fifth without one (the lexical space)."""
    out = []
    for i in range(X.shape[0]):
        n = start + i
        fact = {
            "id": f"f{(n * 7919) % 100_003:06d}-{n}",  # ids in an order unrelated to position
            "text": f"fact {n % 97} about {('api', 'billing', 'deploy')[n % 3]} and {n % 13}",
            "created_at": "2026-01-01T00:00:00Z",
            "entities": [("api", "billing", "deploy", "auth")[n % 4], ("a", "b", "c")[n % 3]],
            "note": f"n{n // 6}",
        }
        if n % 5:
            fact["embedding"] = [round(float(v), 6) for v in X[i]]
        out.append(fact)
    return out


def import_into(db: Path, rows: list[dict], name: str, k: int = 5) -> Store:
    """`import` as the CLI runs it: the facts appended, then the graph brought up to date
    inside the same transaction (from the files beside the store when they are there)."""
    src = write_jsonl(db.parent / f"{name}.jsonl", rows)
    store = Store.open(db, create=True)
    import_facts(
        store, parse_file(src), str(src), after_insert=lambda conn, new: update_graph(conn, new, config(k))
    )
    return store


def stored_and_import(tmp_path: Path, old: int, new: int, tag: str) -> tuple[Store, list[dict]]:
    X = clustered(old + new, seed=4)
    first, more = facts(X[:old], 0), facts(X[old:], old)
    db = tmp_path / f"{tag}.db"
    import_into(db, first, f"{tag}-first").close()
    assert (tmp_path / f"{tag}.db-graph" / "model.json").exists(), "the store has its graph folder"
    return import_into(db, more, f"{tag}-more"), first + more


def test_an_import_too_large_for_the_walk_rebuilds_the_space() -> None:
    """A space searched by its cells (approximate, CELLS_ABOVE rows or more): the walk costs
    about forty times a full build's share per new fact (30,000 into 300,000 took 4.4 times
    an import of all 300,000 into an empty store), so an import of a fortieth of the space
    or more builds it anew; 1,000 facts into a million still walk."""
    gc = config().graph
    assert not rebuild_is_cheaper(1_000_000, 1_001_000, gc, walked=True)
    assert rebuild_is_cheaper(300_000, 330_000, gc, walked=True)
    assert not rebuild_is_cheaper(300_000, 330_000, gc, walked=False)  # m x n under the full build's
    assert rebuild_is_cheaper(100_000, 300_000, gc)


@pytest.mark.parametrize(("old", "new"), [(600, 150), (300, 700)])
def test_an_import_into_a_store_gives_the_edges_of_one_import_of_every_fact(
    tmp_path: Path, old: int, new: int
) -> None:
    """Few new facts (searched against the store's files) or more than the store held
    (its spaces built anew): the same edges, weights and lists as importing them all at
    once into an empty store."""
    store, every = stored_and_import(tmp_path, old, new, "inc")
    assert rebuild_is_cheaper(old, old + new, config().graph) == (new >= old)
    whole = import_into(tmp_path / "whole.db", every, "whole")
    assert edge_set(store._conn) == edge_set(whole._conn)
    for sql in ("SELECT * FROM knn ORDER BY pos", "SELECT * FROM npmi_edges ORDER BY a, b"):
        assert store._conn.execute(sql).fetchall() == whole._conn.execute(sql).fetchall()
    store.close()
    whole.close()


def _peak_of_import(tmp_path: Path, old: int, new: int) -> int:
    X = clustered(old + new, seed=6)
    db = tmp_path / f"p{new}.db"
    import_into(db, facts(X[:old], 0), f"p{new}-first").close()
    src = write_jsonl(tmp_path / f"p{new}-more.jsonl", facts(X[old:], old))
    parsed = parse_file(src)
    store = Store.open(db)
    tracemalloc.start()
    try:
        import_facts(store, parsed, str(src), after_insert=lambda conn, n: update_graph(conn, n, config(5)))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        store.close()


@pytest.mark.parametrize("old", [500, 6000])
def test_twice_the_rows_imported_into_a_store_take_at_most_about_twice_the_memory(
    tmp_path: Path, old: int
) -> None:
    """Before issue 37's fix the new rows were multiplied with each other in tiles of up to
    8,192 x 4,096: 2,000 and then 4,000 rows into 500 took four times the memory. Now
    the peak follows the rows (their vectors, lists and a fixed block of products)."""
    small, large = _peak_of_import(tmp_path, old, 1000), _peak_of_import(tmp_path, old, 2000)
    assert large < 2.5 * small, (small, large)


def test_a_second_append_to_an_approximate_space_keeps_its_recall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a space with cells (an approximate graph) the facts appended since the build (the
    tail) are searched by every new fact, and a walk along the stored lists can reach
    them again: counted twice among a new fact's best so far, such a pair crowded out a
    candidate. Two appends, the second with a tail, keep the target recall."""
    pytest.importorskip("pynndescent")
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.graph import build as graphstore
    from synapse_tui.core.graph import edges as g
    from synapse_tui.core.graph.build import ensure_graph
    from tests.core.graph_stores import build_store, facts_with_embeddings

    monkeypatch.setattr(graphcache, "CELLS_ABOVE", 0)
    monkeypatch.setattr(graphstore, "WALK_SHARE", 0)  # the walk, not its price (400 into 2,200)
    X = clustered(3000, seed=9, noise=0.8)
    config = Config().with_values("graph", approximate_above=1000, route="approximate")
    _, store, _ = build_store(tmp_path, X[:2200], config)
    monkeypatch.setattr(graphstore, "_load_space", lambda *a: pytest.fail("read every vector"))
    for lo, hi in ((2200, 2600), (2600, 3000)):
        src = write_jsonl(tmp_path / f"more{lo}.jsonl", facts_with_embeddings(X[lo:hi], start=lo))
        import_facts(store, parse_file(src), str(src))
        with store.transaction() as conn:
            assert ensure_graph(conn, config).extended == ("model",)
    stored = {
        pos: np.frombuffer(nb, np.int32) - 1
        for pos, nb in store._conn.execute("SELECT pos, nbrs FROM knn WHERE pos > 2200")
    }
    exact = g.exact_knn(g.normalise(np.round(X, 6)), g.string_ranks([f"f{i:05d}" for i in range(3000)]), 10)
    hits = sum(np.intersect1d(stored[p], exact.nbrs[p - 1]).size for p in stored)
    assert len(stored) == 800 and hits / (10 * 800) >= 0.99, hits / 8000
    store.close()
