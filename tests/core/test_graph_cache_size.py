"""An update's memory does not grow with the square of the rows it adds (issue 37, point
11): 47,000 new facts into a store of 20,000 were an n x n float32 product (8.8 GB) and
segfaulted. The search goes a tile at a time, and the lists it makes are still exactly a
full build's."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from synapse_tui.core.graph import build as graphstore
from synapse_tui.core.graph import cache as graphcache
from synapse_tui.core.graph.build import rebuild_graph, update_graph
from tests.core.graph_stores import add, config, edge_set
from tests.core.test_graph_cache import assert_as_rebuilt, clustered_facts, open_db


@pytest.fixture(autouse=True)
def small_spaces_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graphcache, "MIN_ROWS", 0)
    monkeypatch.setattr(graphcache, "CELLS_ABOVE", 0)


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
