"""The files beside the store that make an incremental update cheap (`graphcache`): the
update they drive is the same, bit for bit, as a full rebuild; files that do not belong to
the stored graph are never used."""

from __future__ import annotations

import json
import sqlite3
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from synapse_tui.core.graph import build as graphstore
from synapse_tui.core.graph import cache as graphcache
from synapse_tui.core.graph.build import ensure_graph, rebuild_graph, update_graph
from synapse_tui.core.store.schema import migrate
from tests.core.graph_stores import add, config, edge_set

TABLES = (
    "SELECT * FROM knn ORDER BY pos",
    "SELECT * FROM semantic_edges ORDER BY a, b",
    "SELECT * FROM npmi_edges ORDER BY a, b",
    "SELECT * FROM meta WHERE key LIKE 'graph.%' ORDER BY key",
)


@pytest.fixture(autouse=True)
def small_spaces_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graphcache, "MIN_ROWS", 0)
    monkeypatch.setattr(graphcache, "CELLS_ABOVE", 0)


def clustered_facts(rng: np.random.Generator, n: int, start: int) -> list[tuple]:
    """Facts in tight clusters (so cells prune), some exact duplicates (ties go by id),
    ids in an order unrelated to position, and a few facts without an embedding."""
    centres = np.random.default_rng(11).standard_normal((40, 16))
    out = []
    for i in range(start, start + n):
        c = int(rng.integers(0, 40))
        vec = centres[c] + 0.15 * rng.standard_normal(16)
        if i % 17 == 3:
            vec = centres[c]  # duplicates of one another
        if i % 23 == 5:
            vec = None
        note = f"n{int(rng.integers(0, n // 4 + 1))}"
        ents = tuple(f"E{int(e)}" for e in rng.choice(9, size=2, replace=False))
        out.append((f"id{int(rng.integers(0, 999)):03d}-{i}", f"fact {c} words {i % 7}", vec, note, ents))
    return out


def open_db(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    migrate(conn)
    return conn


def assert_as_rebuilt(conn, facts, path: Path, k: int = 4) -> sqlite3.Connection:
    """The graph tables of `conn` equal those of a full build over `facts` in a new store
    (which is returned)."""
    full = open_db(path)
    for f in facts:
        add(full, *f)
    rebuild_graph(full, config(k=k))
    for sql in TABLES:
        assert conn.execute(sql).fetchall() == full.execute(sql).fetchall()
    return full


@pytest.mark.parametrize("seed", range(3))
def test_updates_from_the_files_equal_a_full_rebuild(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(seed)
    batches = [clustered_facts(rng, 400, 0)] + [clustered_facts(rng, 60, 400 + 60 * b) for b in range(3)]
    inc = open_db(tmp_path / "inc.db")
    for f in batches[0]:
        add(inc, *f)
    rebuild_graph(inc, config(k=5))
    inc.commit()
    assert (tmp_path / "inc.db-graph" / "model.json").exists()

    def everything(*args: object) -> None:
        raise AssertionError("an append read every fact back out of the store")

    monkeypatch.setattr(graphstore, "_load_space", everything)
    monkeypatch.setattr(graphstore, "_npmi_arrays", everything)
    for batch in batches[1:]:  # three appends: the second and third read the tail the first wrote
        for f in batch:
            add(inc, *f)
        result = update_graph(inc, [], config(k=5))
        inc.commit()
        assert set(result.extended) == {"model", "lexical"}
        assert json.loads((tmp_path / "inc.db-graph" / "model.json").read_text())["count"] == sum(
            1 for b in batches[: batches.index(batch) + 1] for f in b if f[2] is not None
        )
    monkeypatch.undo()
    monkeypatch.setattr(graphcache, "MIN_ROWS", 0)
    monkeypatch.setattr(graphcache, "CELLS_ABOVE", 0)
    full = assert_as_rebuilt(inc, [f for b in batches for f in b], tmp_path / "full.db", k=5)
    assert edge_set(inc) == edge_set(full)
    assert not ensure_graph(inc, config(k=5), verify=True).changed


def test_files_of_another_graph_are_not_used(tmp_path: Path) -> None:
    """A store restored from a backup next to newer files: the fingerprint differs, so the
    update reads the store instead, and is still right."""
    rng = np.random.default_rng(7)
    first, second = clustered_facts(rng, 300, 0), clustered_facts(rng, 40, 300)
    db = tmp_path / "m.db"
    conn = open_db(db)
    for f in first:
        add(conn, *f)
    rebuild_graph(conn, config(k=4))
    conn.commit()
    conn.close()
    backup = (tmp_path / "m.db").read_bytes()
    conn = sqlite3.connect(db)
    for f in second:
        add(conn, *f)
    update_graph(conn, [], config(k=4))
    conn.commit()
    conn.close()
    (tmp_path / "m.db").write_bytes(backup)  # the files now describe 340 facts, the store 300
    conn = sqlite3.connect(db)
    third = clustered_facts(rng, 40, 340)
    for f in third:
        add(conn, *f)
    update_graph(conn, [], config(k=4))
    conn.commit()
    assert_as_rebuilt(conn, first + third, tmp_path / "full.db")


def test_a_torn_file_is_not_used_and_is_written_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(8)
    first, second, third = (clustered_facts(rng, n, s) for n, s in ((300, 0), (30, 300), (30, 330)))
    conn = open_db(tmp_path / "m.db")
    for f in first:
        add(conn, *f)
    rebuild_graph(conn, config(k=4))
    conn.commit()
    vec = tmp_path / "m.db-graph" / "model.vec"
    vec.write_bytes(vec.read_bytes()[:-4])
    for f in second:
        add(conn, *f)
    assert "model" in update_graph(conn, [], config(k=4)).extended  # read from the store
    conn.commit()
    monkeypatch.setattr(graphstore, "_load_space", lambda *a: pytest.fail("the files were not written again"))
    for f in third:
        add(conn, *f)
    assert "model" in update_graph(conn, [], config(k=4)).extended
    monkeypatch.undo()
    monkeypatch.setattr(graphcache, "MIN_ROWS", 0)
    assert_as_rebuilt(conn, first + second + third, tmp_path / "full.db")


@pytest.mark.slow  # numba compiles pynndescent in each new process: 40 s to 3 min on two cores
def test_an_approximate_space_searches_its_nearest_cells_at_the_target_recall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above the threshold a new fact searches the cells nearest it (an exact search of a
    million rows per fact would take longer than the update may): its list is the exact
    one but for neighbours in cells it did not read, as measured."""
    pytest.importorskip("pynndescent")
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.graph import edges as g
    from synapse_tui.core.ingest.interchange import import_facts, parse_file
    from tests.core.graph_stores import build_store, clustered, facts_with_embeddings
    from tests.helpers import write_jsonl

    X = clustered(3000, seed=9, noise=0.8)
    # the index itself, not its price: at 3,000 facts the exact route is always cheaper
    config = Config().with_values("graph", approximate_above=1000, route="approximate")
    monkeypatch.setattr(graphstore, "WALK_SHARE", 0)  # the walk, not its price (400 into 2,600)
    db, store, update = build_store(tmp_path, X[:2600], config)
    kept = json.loads((tmp_path / "m.db-graph" / "model.json").read_text())
    assert kept["probes"] >= 1 and kept["method"].startswith("pynndescent")
    monkeypatch.setattr(graphstore, "_load_space", lambda *a: pytest.fail("read every vector"))
    src = write_jsonl(tmp_path / "more.jsonl", facts_with_embeddings(X[2600:], start=2600))
    import_facts(store, parse_file(src), str(src))
    with store.transaction() as conn:
        assert ensure_graph(conn, config).extended == ("model",)
    stored = {
        pos: np.frombuffer(nb, np.int32) - 1
        for pos, nb in store._conn.execute("SELECT pos, nbrs FROM knn WHERE pos > 2600")
    }
    exact = g.exact_knn(g.normalise(np.round(X, 6)), g.string_ranks([f"f{i:05d}" for i in range(3000)]), 10)
    hits = sum(np.intersect1d(stored[p], exact.nbrs[p - 1]).size for p in stored)
    assert len(stored) == 400 and hits / (10 * 400) >= 0.99
    store.close()


def test_a_new_rows_nearest_cells_are_the_sorted_order_cut_short() -> None:
    """The cells an update starts from: the first p of every cell sorted by closeness (ties
    in cell order), found with a partition instead of sorting all of them."""
    from synapse_tui.core.graph.knn import top_columns

    rng = np.random.default_rng(5)
    for m, c, p in ((50, 7, 3), (200, 500, 32), (10, 40, 40), (40, 3000, 16), (20, 2050, 32)):  # both bars
        closeness = rng.standard_normal((m, c)).astype(np.float32)
        closeness[:, 5] = closeness[:, 6]  # ties
        assert np.array_equal(top_columns(closeness, p), np.argsort(-closeness, axis=1, kind="stable")[:, :p])


def test_the_best_over_column_blocks_are_the_sorted_order_cut_short() -> None:
    """The exact top-k behind every recall figure, merged over column blocks with a bar:
    the same values as sorting each whole row, with ties, -inf (a row itself) and blocks
    too narrow for the bar's column groups."""
    from synapse_tui.core.graph.knn import top_of_blocks

    rng = np.random.default_rng(8)
    for m, n, k, step in ((30, 5000, 10, 1024), (7, 300, 20, 64), (12, 95, 10, 9)):
        S = np.round(rng.standard_normal((m, n)), 1).astype(np.float32)  # many ties
        S[np.arange(m), rng.integers(0, n, m)] = -np.inf
        blocks = ((S[:, c0 : c0 + step], np.arange(c0, min(c0 + step, n))) for c0 in range(0, n, step))
        ids, vals = top_of_blocks(blocks, m, k)
        want = -np.sort(-S, axis=1)[:, :k]
        assert np.array_equal(np.sort(vals, axis=1)[:, ::-1], want)
        assert np.array_equal(np.take_along_axis(S, ids, axis=1), vals)
        assert all(np.unique(r).size == k for r in ids)


def test_an_updates_recall_check_counts_each_true_neighbour_a_list_missed() -> None:
    """The check that decides whether an update widens its search: against an exact search
    of every row, a list missing one true neighbour in one of 8 checked rows is a recall of
    1 - 1/80; a list that is exact is 1.0."""
    from synapse_tui.core.graph.cache import _recall, _truth
    from synapse_tui.core.graph.edges import Knn

    rng = np.random.default_rng(3)
    X = rng.standard_normal((600, 16)).astype(np.float32)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    V, Xn = X[:500][::-1].copy(), X[500:]  # the file holds the old rows in another order
    order = np.arange(500)[::-1].copy()
    k, rows = 10, np.arange(0, 96, 12)
    S = Xn[rows] @ X.T
    S[np.arange(rows.size), 500 + rows] = -np.inf
    exact = np.argsort(-S, axis=1, kind="stable")
    truth = _truth(V, order, Xn, rows, 2 * k)
    assert [set(r) for r in truth[0]] == [set(r) for r in exact[:, : 2 * k]]
    nbrs = np.zeros((600, k), np.int64)
    cos = np.zeros((600, k), np.float32)
    nbrs[500 + rows] = exact[:, :k]
    cos[500 + rows] = np.take_along_axis(S, exact[:, :k], axis=1)
    assert _recall(truth, Knn(nbrs, cos), 500, rows, k, 16) == 1.0
    nbrs[500 + rows[3], 4] = exact[3, k + 5]  # a far row in place of a true neighbour
    assert _recall(truth, Knn(nbrs, cos), 500, rows, k, 16) == pytest.approx(1 - 1 / 80)


# -- issue 37: memory that does not grow with the square of the rows added --------------


def test_a_tiled_update_equals_a_full_rebuild(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiles far smaller than the batch, so every seam of the tiling is crossed."""
    monkeypatch.setattr(graphcache, "TILE_ROWS", 37)
    monkeypatch.setattr(graphcache, "TILE_COLS", 23)
    rng = np.random.default_rng(5)
    first, more = clustered_facts(rng, 300, 0), clustered_facts(rng, 250, 300)
    inc = open_db(tmp_path / "inc.db")
    for f in first:
        add(inc, *f)
    rebuild_graph(inc, config(k=5))
    inc.commit()
    monkeypatch.setattr(graphstore, "_load_space", lambda *a: pytest.fail("read every vector"))
    for f in more:
        add(inc, *f)
    assert "model" in update_graph(inc, [], config(k=5)).extended
    inc.commit()
    monkeypatch.undo()
    monkeypatch.setattr(graphcache, "MIN_ROWS", 0)
    monkeypatch.setattr(graphcache, "CELLS_ABOVE", 0)
    full = assert_as_rebuilt(inc, first + more, tmp_path / "full.db", k=5)
    assert edge_set(inc) == edge_set(full)


def _peak_of_update(tmp_path: Path, new: int) -> int:
    rng = np.random.default_rng(1)
    conn = open_db(tmp_path / f"m{new}.db")
    for f in clustered_facts(rng, 500, 0):
        add(conn, *f)
    rebuild_graph(conn, config(k=5))
    conn.commit()
    for f in clustered_facts(rng, new, 500):
        add(conn, f[0], f[1], f[2])  # no notes or entities: the semantic lists alone
    tracemalloc.start()
    try:
        update_graph(conn, [], config(k=5))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        conn.commit()


def test_the_memory_of_an_update_grows_linearly_with_the_rows_it_adds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(graphcache, "TILE_ROWS", 512, raising=False)
    monkeypatch.setattr(graphcache, "TILE_COLS", 256, raising=False)
    small, large = _peak_of_update(tmp_path, 1500), _peak_of_update(tmp_path, 6000)
    # four times the rows: an n x n product is 16 times the memory (144 MB at 6,000);
    # tiles keep the growth that of the rows' own arrays
    assert large < 6 * small, (small, large)
    assert large < 6000 * 6000 * 4, large


def test_a_link_planted_in_the_graph_folder_is_never_written_through(tmp_path: Path) -> None:
    """The folder beside a store comes with the store: a file there that is a link to one
    of the user's is neither read nor written through (issue 37)."""
    rng = np.random.default_rng(3)
    conn = open_db(tmp_path / "m.db")
    for f in clustered_facts(rng, 200, 0):
        add(conn, *f)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    base = tmp_path / "m.db-graph"
    base.mkdir()
    for name in ("model.vec", "model.nbrs", "model.npz", "model.json.tmp", "npmi.npz", "npmi.json.tmp"):
        (base / name).symlink_to(victim)
    rebuild_graph(conn, config(k=5))
    conn.commit()
    for f in clustered_facts(rng, 30, 200):
        add(conn, *f)
    update_graph(conn, [], config(k=5))
    conn.commit()
    assert victim.read_text() == "precious\n"
    assert (base / "model.vec").is_symlink()  # left as it was, not followed
