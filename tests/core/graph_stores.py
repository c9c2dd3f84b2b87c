"""Small graph stores built straight into SQLite, and their edges read back."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.graph import edges as g
from synapse_tui.core.graph import embed as embedder
from synapse_tui.core.graph.build import ensure_graph, load_edges
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.arrays import event_blob
from synapse_tui.core.store.db import SqliteStore, Store
from tests.helpers import write_jsonl


def config(k: int = 3, min_count: int = 2) -> SimpleNamespace:
    return SimpleNamespace(
        graph=SimpleNamespace(
            k=k, npmi_min_count=min_count, near_duplicate_weight=0.9, unsupported_age_days=90.0
        )
    )


def add(
    conn: sqlite3.Connection,
    fid: str,
    text: str,
    vec: list[float] | np.ndarray | None = None,
    note: str | None = None,
    entities: tuple[str, ...] = (),
    tier: str = "auto",
    r: int = 0,
    created_ts: float = 0.0,
) -> int:
    pos = conn.execute("SELECT coalesce(max(pos), 0) + 1 FROM facts").fetchone()[0]
    conn.execute(
        "INSERT INTO facts (pos, id, text, created_at, created_ts, tier, r, s, events, note, entities, sig_state)"
        " VALUES (?, ?, ?, '1970-01-01T00:00:00Z', ?, ?, ?, 0, ?, ?, ?, 0)",
        (pos, fid, text, created_ts, tier, r, event_blob(created_ts, []), note, json.dumps(list(entities))),
    )
    seen = set()
    for name in entities:
        key = name.strip().casefold()
        if key in seen:
            continue
        seen.add(key)
        conn.execute("INSERT OR IGNORE INTO entities (key) VALUES (?)", (key,))
        conn.execute(
            "INSERT INTO mentions (pos, eid, spelling) VALUES (?, (SELECT eid FROM entities WHERE key = ?), ?)",
            (pos, key, name.strip()),
        )
    if vec is not None:
        conn.execute(
            "INSERT INTO embeddings (pos, kind, vec) VALUES (?, 'model', ?)",
            (pos, g.normalise(np.array([vec]))[0].tobytes()),
        )
    return pos


def as_store(conn: sqlite3.Connection) -> Store:
    """The test's connection as the Store the graph's readers take."""
    return SqliteStore(Path("test.db"), conn, readonly=True)


def edge_set(conn: sqlite3.Connection) -> list[tuple]:
    return [(e.kind, e.a, e.b, round(e.weight, 12), e.space) for e in load_edges(as_store(conn))]


N, D = 3000, 48


def clustered(n: int, seed: int, noise: float = 0.6) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n // 30, D))
    return g.normalise(centres[rng.integers(0, len(centres), n)] + noise * rng.standard_normal((n, D)))


def facts_with_embeddings(X: np.ndarray, start: int = 0) -> list[dict]:
    return [
        {
            "id": f"f{start + i:05d}",
            "text": f"fact {start + i}",
            "created_at": "2026-01-01T00:00:00Z",
            "embedding": [round(float(v), 6) for v in X[i]],
        }
        for i in range(X.shape[0])
    ]


def build_store(tmp_path, X: np.ndarray, config: Config, name: str = "m.db"):
    src = write_jsonl(tmp_path / "facts.jsonl", facts_with_embeddings(X))
    db = tmp_path / name
    store = Store.open(db, create=True)
    import_facts(store, parse_file(src), str(src))
    with store.transaction() as conn:
        update = ensure_graph(conn, config)
    return db, store, update


def fake_model(texts, progress=None):
    """Deterministic unit vectors of the model's dimension (torch is not installed here):
    each text's own direction, so neighbours exist and differ from the lexical ones."""
    rng = np.random.default_rng(len(texts))
    base = rng.normal(size=(8, embedder.DIM))
    X = np.stack([base[sum(map(ord, t)) % 8] + 0.3 * rng.normal(size=embedder.DIM) for t in texts])
    return X / np.linalg.norm(X, axis=1, keepdims=True)
