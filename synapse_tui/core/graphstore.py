"""The neighbour graph in the store: build, update incrementally, fingerprint.

Functions take a plain `sqlite3.Connection` and never commit: the caller owns the
transaction (the import pipeline runs `update_graph` inside its own, so a failure leaves
the store untouched).

Fingerprints (in `meta`, keys `graph.*`): the parameters the graph was built with, and per
embedding space a blake2b digest over (pos, id, vector) in position order plus the row
count and last position; for NPMI a digest over (pos, note, entity keys). Facts are
append-only (text, note, entities and embeddings never change after import), so
`ensure_graph` decides from counts and last positions alone, which costs a few indexed
aggregates; `verify=True` re-hashes the content instead. When the digest of the rows up to
the last built position still matches, only the rows after it are new and the update is
incremental; anything else rebuilds that part from scratch.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import struct
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from synapse_tui.core import graph as g
from synapse_tui.core.lexical import embed_texts

ALGORITHM = "mutual-knn-local-baseline/1;npmi/1;lexical-ngram256/1"
SPACES = ("model", "lexical")
_PARAMS = "graph.params"


@dataclass(frozen=True)
class GraphUpdate:
    """What a build or update did, for the CLI to report."""

    rebuilt: tuple[str, ...]  # parts recomputed from scratch: 'model', 'lexical', 'npmi'
    extended: tuple[str, ...]  # spaces updated incrementally
    lexical_added: int  # facts given a built-in lexical embedding

    @property
    def changed(self) -> bool:
        return bool(self.rebuilt or self.extended or self.lexical_added)


def _params(config: Any) -> str:
    gc = config.graph
    return json.dumps({"algorithm": ALGORITHM, "k": int(gc.k), "npmi_min_count": int(gc.npmi_min_count)})


def _meta_get(conn: sqlite3.Connection, key: str) -> Any:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else json.loads(row[0])


def _meta_set(conn: sqlite3.Connection, key: str, value: Any) -> None:
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value)))


class _Bar:
    """Maps each phase's (done, total) onto one monotone bar."""

    def __init__(self, progress: g.Progress | None, weights: dict[str, float]) -> None:
        self.progress, self.total = progress, 1000
        span = sum(weights.values()) or 1.0
        self.spans, acc = {}, 0.0
        for name, w in weights.items():
            self.spans[name] = (acc / span, w / span)
            acc += w

    def phase(self, name: str) -> g.Progress | None:
        if self.progress is None:
            return None
        start, width = self.spans[name]

        def report(done: int, total: int) -> None:
            self.progress(int(self.total * (start + width * done / max(total, 1))), self.total)

        return report

    def finish(self) -> None:
        if self.progress:
            self.progress(self.total, self.total)


def add_lexical_embeddings(conn: sqlite3.Connection) -> int:
    """Give every fact without an embedding the built-in lexical one; how many got one."""
    rows = conn.execute(
        "SELECT pos, text FROM facts WHERE pos NOT IN (SELECT pos FROM embeddings) ORDER BY pos"
    ).fetchall()
    if rows:
        vecs = embed_texts([t for _, t in rows])
        conn.executemany(
            "INSERT INTO embeddings (pos, kind, vec) VALUES (?, 'lexical', ?)",
            [(p, v.tobytes()) for (p, _), v in zip(rows, vecs, strict=True)],
        )
    return len(rows)


@dataclass(frozen=True)
class _Space:
    pos: np.ndarray  # int64 fact positions, ascending
    ids: list[str]
    X: np.ndarray  # float32 (n, d)
    digest: str
    prefix_digest: str | None  # digest of the rows with pos <= the given cut
    n_prefix: int


def _load_space(conn: sqlite3.Connection, kind: str, cut: int | None = None) -> _Space:
    rows = conn.execute(
        "SELECT e.pos, f.id, e.vec FROM embeddings e JOIN facts f ON f.pos = e.pos WHERE e.kind = ? ORDER BY e.pos",
        (kind,),
    ).fetchall()
    h = hashlib.blake2b(kind.encode(), digest_size=16)
    prefix, n_prefix = (h.hexdigest(), 0) if cut is not None else (None, 0)
    dims = {len(r[2]) for r in rows}
    if len(dims) > 1:
        raise ValueError(
            f"{kind} embeddings of different dimensions in one store: {sorted(d // 4 for d in dims)}"
        )
    for i, (pos, fid, vec) in enumerate(rows):
        h.update(struct.pack("<qI", pos, len(fid.encode())) + fid.encode() + vec)
        if cut is not None and pos <= cut:
            prefix, n_prefix = h.hexdigest(), i + 1
    d = dims.pop() // 4 if dims else 0
    X = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), d)
    pos = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    return _Space(pos, [r[1] for r in rows], X, h.hexdigest(), prefix, n_prefix)


def _built_state(sp: _Space) -> dict[str, Any]:
    return {"digest": sp.digest, "count": int(sp.pos.size), "max_pos": int(sp.pos[-1]) if sp.pos.size else 0}


def _space_state(conn: sqlite3.Connection, kind: str) -> dict[str, int]:
    n, last = conn.execute(
        "SELECT count(*), coalesce(max(pos), 0) FROM embeddings WHERE kind = ?", (kind,)
    ).fetchone()
    return {"count": n, "max_pos": last}


def _npmi_state(conn: sqlite3.Connection) -> dict[str, int]:
    n, last = conn.execute("SELECT count(*), coalesce(max(pos), 0) FROM facts").fetchone()
    return {
        "facts": n,
        "max_pos": last,
        "mentions": conn.execute("SELECT count(*) FROM mentions").fetchone()[0],
    }


def _write_knn(conn: sqlite3.Connection, sp: _Space, knn: g.Knn, rows: np.ndarray) -> None:
    nbr_pos = sp.pos[knn.nbrs].astype(np.int32)
    conn.executemany(
        "INSERT OR REPLACE INTO knn (pos, nbrs, cos) VALUES (?, ?, ?)",
        [(int(sp.pos[r]), nbr_pos[r].tobytes(), knn.cos[r].tobytes()) for r in rows],
    )


def _write_edges(
    conn: sqlite3.Connection, kind: str, sp: _Space, knn: g.Knn, dirty: np.ndarray | None
) -> None:
    a, b, w = g.mutual_edges(knn)
    if dirty is None:
        conn.execute("DELETE FROM semantic_edges WHERE kind = ?", (kind,))
    else:
        gone = [(int(p),) for p in sp.pos[dirty]]
        conn.executemany("DELETE FROM semantic_edges WHERE a = ?", gone)
        conn.executemany("DELETE FROM semantic_edges WHERE b = ?", gone)
        keep = dirty[a] | dirty[b]
        a, b, w = a[keep], b[keep], w[keep]
    conn.executemany(
        "INSERT INTO semantic_edges (a, b, weight, kind) VALUES (?, ?, ?, ?)",
        zip(sp.pos[a].tolist(), sp.pos[b].tolist(), w.tolist(), [kind] * a.size, strict=True),
    )


def _rebuild_space(conn: sqlite3.Connection, kind: str, k: int, progress: g.Progress | None) -> None:
    sp = _load_space(conn, kind)
    conn.execute("DELETE FROM knn WHERE pos IN (SELECT pos FROM embeddings WHERE kind = ?)", (kind,))
    knn = g.exact_knn(sp.X, g.string_ranks(sp.ids), k, progress)
    _write_knn(conn, sp, knn, np.arange(sp.pos.size))
    _write_edges(conn, kind, sp, knn, None)
    _meta_set(conn, f"graph.semantic.{kind}", _built_state(sp))


def _extend_space(
    conn: sqlite3.Connection, kind: str, k: int, stored: dict, progress: g.Progress | None
) -> bool:
    """Append-only update of one space; False when it must be rebuilt instead."""
    sp = _load_space(conn, kind, cut=stored["max_pos"])
    n, n_old = sp.pos.size, sp.n_prefix
    if sp.prefix_digest != stored["digest"] or n_old != stored["count"]:
        return False
    if n == n_old:
        return True
    k_eff = g.effective_k(k, n)
    old_rows = conn.execute(
        "SELECT k.pos, k.nbrs, k.cos FROM knn k JOIN embeddings e ON e.pos = k.pos"
        " WHERE e.kind = ? AND k.pos <= ? ORDER BY k.pos",
        (kind, stored["max_pos"]),
    ).fetchall()
    if len(old_rows) != n_old or any(len(r[1]) != 4 * k_eff for r in old_rows):
        return False  # min(k, N-1) grew, or the lists are missing: not an append
    nbr_pos = np.frombuffer(b"".join(r[1] for r in old_rows), dtype=np.int32).reshape(n_old, k_eff)
    cos = np.frombuffer(b"".join(r[2] for r in old_rows), dtype=np.float32).reshape(n_old, k_eff)
    old = g.Knn(np.searchsorted(sp.pos, nbr_pos.astype(np.int64)), cos)
    knn, dirty = g.extend_knn(sp.X, g.string_ranks(sp.ids), old, n_old, k, progress)
    _write_knn(conn, sp, knn, np.flatnonzero(dirty))
    _write_edges(conn, kind, sp, knn, dirty)
    _meta_set(conn, f"graph.semantic.{kind}", _built_state(sp))
    return True


def _npmi_digest(conn: sqlite3.Connection) -> str:
    h = hashlib.blake2b(digest_size=16)
    for pos, note in conn.execute("SELECT pos, note FROM facts ORDER BY pos"):
        h.update(f"{pos}\0{note}\1".encode())
    for pos, key in conn.execute(
        "SELECT m.pos, e.key FROM mentions m JOIN entities e USING (eid) ORDER BY m.pos, e.key"
    ):
        h.update(f"{pos}\0{key}\1".encode())
    return h.hexdigest()


def _rebuild_npmi(conn: sqlite3.Connection, min_count: int) -> None:
    rows = conn.execute(
        "SELECT m.eid, coalesce('n' || f.note, 'f' || f.pos) FROM mentions m JOIN facts f ON f.pos = m.pos"
    ).fetchall()
    conn.execute("DELETE FROM npmi_edges")
    eids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    units: dict[str, int] = {}
    unit = np.fromiter((units.setdefault(r[1], len(units)) for r in rows), dtype=np.int64, count=len(rows))
    known, ent = np.unique(eids, return_inverse=True) if rows else (np.zeros(0, np.int64), eids)
    a, b, w, n_ab = g.npmi_edges(unit, ent, known.size, min_count)
    conn.executemany(
        "INSERT INTO npmi_edges (a, b, weight, n_ab) VALUES (?, ?, ?, ?)",
        zip(known[a].tolist(), known[b].tolist(), w.tolist(), n_ab.tolist(), strict=True),
    )
    G = nx.Graph()
    G.add_nodes_from(known.tolist())
    G.add_weighted_edges_from(zip(known[a].tolist(), known[b].tolist(), w.tolist(), strict=True))
    rank = nx.pagerank(G, weight="weight") if G.number_of_nodes() else {}
    _meta_set(conn, "graph.pagerank", {str(e): v for e, v in rank.items()})
    _meta_set(conn, "graph.npmi", {"digest": _npmi_digest(conn), **_npmi_state(conn)})


def rebuild_graph(conn: sqlite3.Connection, config: Any, progress: g.Progress | None = None) -> GraphUpdate:
    """Recompute every edge from scratch (semantic in both spaces, NPMI, PageRank)."""
    added = add_lexical_embeddings(conn)
    bar = _Bar(progress, {**{s: float(_space_state(conn, s)["count"]) ** 2 for s in SPACES}, "npmi": 1.0})
    for kind in SPACES:
        _rebuild_space(conn, kind, config.graph.k, bar.phase(kind))
    _rebuild_npmi(conn, config.graph.npmi_min_count)
    _meta_set(conn, _PARAMS, _params(config))
    bar.finish()
    return GraphUpdate(SPACES + ("npmi",), (), added)


def ensure_graph(
    conn: sqlite3.Connection, config: Any, progress: g.Progress | None = None, *, verify: bool = False
) -> GraphUpdate:
    """Bring the graph up to date, touching nothing when it already is.

    New facts appended since the last build are added incrementally; a change of
    parameters, or of rows that were already built, rebuilds the part concerned.
    """
    if _meta_get(conn, _PARAMS) != _params(config):
        return rebuild_graph(conn, config, progress)
    added = add_lexical_embeddings(conn)
    rebuilt, extended = [], []
    todo, states = {}, {}
    for kind in SPACES:
        stored = _meta_get(conn, f"graph.semantic.{kind}")
        state = states[kind] = _space_state(conn, kind)
        if stored is None or stored["max_pos"] > state["max_pos"] or stored["count"] > state["count"]:
            todo[kind] = None
        elif verify or {k: stored[k] for k in state} != state:
            todo[kind] = stored
    bar = _Bar(progress, {**{s: float(states[s]["count"]) for s in todo}, "npmi": 1.0})
    for kind, stored in todo.items():
        if stored is not None and _extend_space(conn, kind, config.graph.k, stored, bar.phase(kind)):
            if stored["count"] != states[kind]["count"]:
                extended.append(kind)
        else:
            _rebuild_space(conn, kind, config.graph.k, bar.phase(kind))
            rebuilt.append(kind)
    stored = _meta_get(conn, "graph.npmi")
    if (
        stored is None
        or {k: stored[k] for k in _npmi_state(conn)} != _npmi_state(conn)
        or (verify and stored["digest"] != _npmi_digest(conn))
    ):
        _rebuild_npmi(conn, config.graph.npmi_min_count)
        rebuilt.append("npmi")
    if todo or rebuilt:
        bar.finish()
    return GraphUpdate(tuple(rebuilt), tuple(extended), added)


def update_graph(
    conn: sqlite3.Connection, new_positions: Any, config: Any, progress: g.Progress | None = None
) -> GraphUpdate:
    """The import pipeline's hook after appending facts.

    `new_positions` is accepted for the caller's convenience but not trusted: what is new
    is read from the fingerprints (rows after the last built position), so a stale or
    off-by-one list cannot leave the graph inconsistent.
    """
    del new_positions
    return ensure_graph(conn, config, progress)


@dataclass(frozen=True)
class Edge:
    kind: str  # 'semantic' or 'npmi'
    a: str  # fact id or entity key, a < b
    b: str
    weight: float
    space: str | None = None  # semantic edges: 'model' or 'lexical'

    def to_json(self) -> dict[str, Any]:
        """The SPEC section 6 form."""
        return {"kind": self.kind, "a": self.a, "b": self.b, "weight": self.weight}


def load_edges(conn: sqlite3.Connection) -> list[Edge]:
    """Every edge: semantic ones by (a, b) fact id, then NPMI ones by (a, b) entity key."""
    sem = []
    for x, y, w, kind in conn.execute(
        "SELECT fa.id, fb.id, s.weight, s.kind FROM semantic_edges s"
        " JOIN facts fa ON fa.pos = s.a JOIN facts fb ON fb.pos = s.b"
    ):
        x, y = (x, y) if x < y else (y, x)
        sem.append(Edge("semantic", x, y, w, kind))
    npmi = []
    for x, y, w in conn.execute(
        "SELECT ea.key, eb.key, n.weight FROM npmi_edges n"
        " JOIN entities ea ON ea.eid = n.a JOIN entities eb ON eb.eid = n.b"
    ):
        x, y = (x, y) if x < y else (y, x)
        npmi.append(Edge("npmi", x, y, w))
    sem.sort(key=lambda e: (e.a, e.b))
    npmi.sort(key=lambda e: (e.a, e.b))
    return sem + npmi
