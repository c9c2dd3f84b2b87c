"""The files beside the store that make an incremental update cheap (`graphcache`): the
update they drive is the same, bit for bit, as a full rebuild; files that do not belong to
the stored graph are never used."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from synapse_tui.core import graphcache, graphstore
from synapse_tui.core.graphstore import ensure_graph, rebuild_graph, update_graph
from synapse_tui.core.schema import migrate
from tests.core.test_graph_store import add, config, edge_set

TABLES = (
    "SELECT * FROM knn ORDER BY pos",
    "SELECT * FROM semantic_edges ORDER BY a, b",
    "SELECT * FROM npmi_edges ORDER BY a, b",
    "SELECT * FROM meta WHERE key LIKE 'graph.%' ORDER BY key",
)


@pytest.fixture(autouse=True)
def small_spaces_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graphcache, "MIN_ROWS", 0)


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
    full = open_db(tmp_path / "full.db")
    for f in (f for b in batches for f in b):
        add(full, *f)
    rebuild_graph(full, config(k=5))
    assert edge_set(inc) == edge_set(full)
    for sql in TABLES:
        assert inc.execute(sql).fetchall() == full.execute(sql).fetchall()
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
    full = open_db(tmp_path / "full.db")
    for f in first + third:
        add(full, *f)
    rebuild_graph(full, config(k=4))
    for sql in TABLES:
        assert conn.execute(sql).fetchall() == full.execute(sql).fetchall()


def test_a_torn_file_is_not_used(tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    first, second = clustered_facts(rng, 300, 0), clustered_facts(rng, 30, 300)
    conn = open_db(tmp_path / "m.db")
    for f in first:
        add(conn, *f)
    rebuild_graph(conn, config(k=4))
    conn.commit()
    vec = tmp_path / "m.db-graph" / "model.vec"
    vec.write_bytes(vec.read_bytes()[:-4])
    for f in second:
        add(conn, *f)
    assert "model" in update_graph(conn, [], config(k=4)).extended
    full = open_db(tmp_path / "full.db")
    for f in first + second:
        add(full, *f)
    rebuild_graph(full, config(k=4))
    for sql in TABLES:
        assert conn.execute(sql).fetchall() == full.execute(sql).fetchall()


def test_cells_skip_what_cannot_matter(tmp_path: Path) -> None:
    """In a clustered space most cells are never read for a new fact (and the lists are
    still the exact ones, checked above)."""
    rng = np.random.default_rng(3)
    X = np.random.default_rng(4).standard_normal((200, 32))[rng.integers(0, 200, 20_000)]
    X = X + 0.05 * rng.standard_normal(X.shape)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    centres, cell = graphcache.partition(X.astype(np.float32))
    order, starts, radius = graphcache._cells(X.astype(np.float32), centres, cell)
    angle = np.arccos(np.clip(X[:50] @ centres.T, -1, 1))
    bound = np.cos(np.maximum(0.0, angle - radius[None, :]))
    truth = np.sort(X[:50] @ X.T, axis=1)[:, -12]  # about the 10th neighbour's cosine
    assert (bound >= truth[:, None]).mean() < 0.2
    assert (
        (
            bound
            >= (X[:50] @ X.T).max(axis=1, where=~np.eye(50, 20_000, dtype=bool), initial=-1)[:, None] - 1e-6
        )
        .any(axis=1)
        .all()
    )
