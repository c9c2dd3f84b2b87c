"""The neighbour graph in the store: build, update incrementally, fingerprint.

Functions take a store or a connection (the graph's own tests hand over bare ones), read
and write its tables through `store.graph` (core/store/graph.py: no statement here), and
never commit: the caller owns the transaction (the import pipeline runs `update_graph`
inside its own, so a failure leaves the store untouched).

Fingerprints (in `meta`, keys `graph.*`): the parameters the graph was built with; per
embedding space the row count, last position and an additive digest (the sum mod 2**128 of
a blake2b per (pos, id, vector) row); for NPMI the fact and mention counts, last position
and a blake2b over its exact inputs (each fact's unit, each (pos, entity) mention).

Facts are append-only (text, note, entities and embeddings never change after import), so
`ensure_graph` decides from counts and last positions alone, a few indexed aggregates,
and an append adds the new rows' terms to the stored digest instead of re-hashing the
store: the digest is a sum over rows, so it does not depend on how the rows were batched.
`verify=True` recomputes the digests from the content and rebuilds what no longer matches.
"""

from __future__ import annotations

import hashlib
import json
import struct
from dataclasses import dataclass
from itertools import compress
from typing import TYPE_CHECKING, Any

import numpy as np

from synapse_tui.core.graph import ann, heap, lexical
from synapse_tui.core.graph import cache as graphcache
from synapse_tui.core.graph import edges as g
from synapse_tui.core.store.graph import GraphTables, graph_tables

if TYPE_CHECKING:
    from synapse_tui.core.store.db import Store

ALGORITHM = f"mutual-knn-local-baseline/1;npmi/1;{lexical.VERSION};fingerprint/2"
SPACES = ("model", "lexical")
_PARAMS = "graph.params"
_LEXICAL = "graph.lexical"
_THROUGH = "graph.lexical_through"  # facts up to this position all have an embedding
_MASK = (1 << 128) - 1
_ROW = struct.Struct("<qI")
_BUILD_KEYS = ("method", "recall", "recall_sample")


@dataclass(frozen=True)
class GraphUpdate:
    """What a build or update did, for the CLI to report."""

    rebuilt: tuple[str, ...]  # parts recomputed from scratch: 'model', 'lexical', 'npmi'
    extended: tuple[str, ...]  # spaces updated incrementally
    lexical_added: int  # facts given a built-in lexical embedding
    notes: tuple[str, ...] = ()  # for the user: e.g. exact although approximate was due

    @property
    def changed(self) -> bool:
        return bool(self.rebuilt or self.extended or self.lexical_added)


def _params(config: Any) -> str:
    """The settings the stored graph depends on; a change rebuilds it. The approximate
    index's settings count only when they differ from the defaults, so stores built
    before they existed are not rebuilt for nothing."""
    gc = config.graph
    params = {"algorithm": ALGORITHM, "k": int(gc.k), "npmi_min_count": int(gc.npmi_min_count)}
    changed = {p: ann.param(gc, p) for p in ann.SETTINGS if ann.param(gc, p) != getattr(ann.DEFAULTS, p)}
    return json.dumps(params | ({"approximate": changed} if changed else {}))


def _meta_get(t: GraphTables, key: str) -> Any:
    return t.meta(key)


def _meta_set(t: GraphTables, key: str, value: Any) -> None:
    t.set_meta(key, value)


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
        progress = self.progress
        if progress is None:
            return None
        start, width = self.spans[name]

        def report(done: int, total: int) -> None:
            progress(int(self.total * (start + width * done / max(total, 1))), self.total)

        return report

    def finish(self) -> None:
        if self.progress:
            self.progress(self.total, self.total)


def add_lexical_embeddings(source: Any) -> int:
    """Put every fact without an embedding in the lexical space; how many were put there.

    A lexical fact's row in `embeddings` is a marker with an empty `vec`: its vector is a
    pure function of its text and the embedder's version, so it is computed whenever the
    space is read (`_rows_after`) instead of stored. At 100,000 facts computing them takes
    0.4-0.8 s where inserting and committing them took 1.2 s and 100 MB of store. Stores
    written before keep their stored vectors, which are the same bits and are not read.
    When the embedder's version changes, the lexical space's fingerprint and files are
    dropped, so it is rebuilt from the new vectors.
    """
    t = graph_tables(source)
    if _meta_get(t, _LEXICAL) != lexical.VERSION:
        if t.has_lexical_rows():
            t.delete_meta("graph.semantic.lexical")
            graphcache.drop(t.conn, "lexical")
        _meta_set(t, _LEXICAL, lexical.VERSION)
    # every fact up to `through` has an embedding (a model's replaces a marker, and neither
    # is ever deleted), so only the facts after it are looked at
    through = _meta_get(t, _THROUGH) or 0
    added = t.mark_lexical_after(through)
    last = t.last_position()
    if last != through:
        _meta_set(t, _THROUGH, last)
    return added


@dataclass(frozen=True)
class _Space:
    pos: np.ndarray  # int64 fact positions, ascending
    ids: list[str]
    X: np.ndarray  # float32 (n, d): a model's vectors as stored, the lexical ones as computed

    def digest(self, kind: str, rows: range) -> int:
        """Sum mod 2**128 of each row's blake2b: additive, so appends only add terms.
        `rows`: a range of rows, step 1."""
        view = np.ascontiguousarray(self.X).reshape(-1).data.cast("B")
        step = 4 * self.X.shape[1]
        keyed = hashlib.blake2b(digest_size=16, key=kind.encode())  # copied per row: keyed once
        total, pack = 0, _ROW.pack
        at = slice(rows.start, rows.stop)
        for i, p, name in zip(rows, self.pos[at].tolist(), self.ids[at], strict=True):
            fid = name.encode()
            h = keyed.copy()
            h.update(pack(p, len(fid)) + fid)
            h.update(view[i * step : (i + 1) * step])
            total += int.from_bytes(h.digest(), "little")
        return total & _MASK


def _blobs(blobs: tuple[bytes, ...], width: int, dtype: type) -> np.ndarray:
    """Equal-length blobs as the rows of one array: one copy each, no joined temporary."""
    out: np.ndarray = np.empty((len(blobs), width), dtype=dtype)
    view, step = out.reshape(-1).data.cast("B"), out.itemsize * width
    for i, blob in enumerate(blobs):
        view[i * step : (i + 1) * step] = blob
    return out


def _load_space(t: GraphTables, kind: str) -> _Space:
    """Every row of one space."""
    return _rows_after(t, kind, 0)


def model_space(store: Store) -> tuple[np.ndarray, np.ndarray]:
    """A `Store`'s model embeddings: their positions (from 1, ascending) and the vectors."""
    space = _load_space(store.graph, "model")
    return space.pos, space.X


def _rows_after(t: GraphTables, kind: str, after: int) -> _Space:
    """One space's rows after position `after`, in position order: a model's vectors as
    stored, the lexical space's computed from the facts' text (`add_lexical_embeddings`)."""
    if kind == "lexical":
        rows = t.space_rows(kind, after)
        if not rows:
            return _Space(np.zeros(0, np.int64), [], np.zeros((0, lexical.DIM), np.float32))
        pos, ids, texts = zip(*rows, strict=True)
        del rows
        return _Space(np.array(pos, dtype=np.int64), list(ids), lexical.embed_texts(texts))
    rows = t.space_rows(kind, after)
    if not rows:
        return _Space(np.zeros(0, np.int64), [], np.zeros((0, 0), np.float32))
    pos, ids, vecs = zip(*rows, strict=True)
    del rows
    dims = set(map(len, vecs))
    if len(dims) > 1:
        raise ValueError(
            f"{kind} embeddings of different dimensions in one store: {sorted(d // 4 for d in dims)}"
        )
    return _Space(np.array(pos, dtype=np.int64), list(ids), _blobs(vecs, dims.pop() // 4, np.float32))


def _built_state(sp: _Space, digest: int) -> dict[str, Any]:
    last = int(sp.pos[-1]) if sp.pos.size else 0
    return {"digest": f"{digest:032x}", "count": int(sp.pos.size), "max_pos": last}


def _space_states(t: GraphTables) -> dict[str, dict[str, int]]:
    """Row count and last position per space, in one pass over the embeddings' index."""
    found = {kind: {"count": n, "max_pos": last} for kind, n, last in t.space_counts()}
    return {kind: found.get(kind, {"count": 0, "max_pos": 0}) for kind in SPACES}


def _npmi_state(t: GraphTables) -> dict[str, int]:
    n, last, mentions = t.fact_and_mention_counts()
    return {"facts": n, "max_pos": last, "mentions": mentions}


def _write_knn(t: GraphTables, sp: _Space, knn: g.Knn, rows: np.ndarray) -> None:
    nbr_pos = sp.pos[knn.nbrs[rows]].astype(np.int32)
    cos = knn.cos[rows]
    t.put_knn(zip(sp.pos[rows].tolist(), map(bytes, nbr_pos), map(bytes, cos), strict=True))


def _write_edges(t: GraphTables, kind: str, sp: _Space, knn: g.Knn) -> None:
    """Every edge of the space, after a full build."""
    a, b, w = g.mutual_edges(knn)
    t.replace_semantic(
        kind, zip(sp.pos[a].tolist(), sp.pos[b].tolist(), w.tolist(), [kind] * a.size, strict=True)
    )


def _rewrite_edges(t: GraphTables, kind: str, sp: _Space, old: g.Knn, knn: g.Knn, dirty: np.ndarray) -> None:
    """The edges at the `dirty` rows after an append, from the lists before (`old`, the
    rows built before) and after: only what differs is written. A changed list moves its
    row's baseline, so most of its edges keep their ends and take a new weight; an UPDATE
    of those costs under half of deleting and inserting them (31,000 edges at a million)."""
    rows = np.flatnonzero(dirty)
    a, b, w = g.mutual_edges(knn, rows)
    oa, ob, ow = g.mutual_edges(old, rows[rows < old.nbrs.shape[0]])
    n = np.int64(knn.nbrs.shape[0])
    _, ni, oi = np.intersect1d(a * n + b, oa * n + ob, assume_unique=True, return_indices=True)
    moved = ni[w[ni] != ow[oi]]
    added = np.setdiff1d(np.arange(a.size), ni, assume_unique=True)
    gone = np.setdiff1d(np.arange(oa.size), oi, assume_unique=True)
    P = sp.pos
    t.delete_semantic_pairs(zip(P[oa[gone]].tolist(), P[ob[gone]].tolist(), strict=True))
    t.reweigh_semantic(zip(w[moved].tolist(), P[a[moved]].tolist(), P[b[moved]].tolist(), strict=True))
    t.insert_semantic(
        zip(P[a[added]].tolist(), P[b[added]].tolist(), w[added].tolist(), [kind] * added.size, strict=True)
    )


def _rebuild_space(t: GraphTables, kind: str, config: Any, progress: g.Progress | None) -> str | None:
    """Recompute one space's lists and edges; a note for the user, if any."""
    sp = _load_space(t, kind)
    t.delete_knn_of(kind)
    built = ann.build_knn(
        sp.X, g.string_ranks(sp.ids), config.graph.k, config.graph, progress, lexical=kind == "lexical"
    )
    _write_knn(t, sp, built.knn, np.arange(sp.pos.size))
    _write_edges(t, kind, sp, built.knn)
    state = _built_state(sp, sp.digest(kind, range(sp.pos.size))) | built.meta()
    _meta_set(t, f"graph.semantic.{kind}", state)
    # the files name the settings too: a rolled-back rebuild of the same rows with other
    # settings leaves the same digest in `meta` but other lists in the files
    graphcache.save(
        t.conn,
        kind,
        sp.pos,
        sp.ids,
        sp.X,
        built.knn,
        state | {"params": _params(config)},
        built.approximate,
        float(ann.param(config.graph, "target_recall")) or 0.99,
    )
    return built.note and f"{kind} graph of {sp.pos.size:,} facts: {built.note}"


def rebuild_is_cheaper(n_old: int, n: int, gc: Any, walked: bool = False) -> bool:
    """Whether appending rows n_old.. to a space of n_old rows costs more than building the
    space anew. An append searches each new row against every row (m x n pairs, or a walk
    of the cells, whose new-against-new part is m x m); a full build searches n**2 / 2
    pairs exactly, or, above `graph.approximate_above` (not with route "exact"), takes an
    approximate route priced at under half of that (ann.py, cost.MARGIN). So the space is
    built anew when the new rows' pairs reach the full build's: no import into a store
    costs more than importing all its rows into an empty one (issue 37: 200,000 facts into
    100,000 searched 6e10 pairs where a full build of 300,000 approximates 4.5e10).

    `walked`: the space is searched by its cells (graph/cache.py's walk, an approximate
    space of CELLS_ABOVE rows or more), which costs far more a new row than a full build
    does a row: rebuilt from WALK_SHARE of its rows on."""
    m = n - n_old
    if walked and m > 0 and m * WALK_SHARE >= n_old:
        return True
    approximate = n > ann.param(gc, "approximate_above") and ann.param(gc, "route") != "exact"
    share = REBUILD_APPROXIMATE if approximate else 1.0
    return m > 0 and m * n >= share * n * n / 2


# 30,000 facts into an approximate 300,000 by the walk took 368 s of CPU, an import of
# 300,000 into an empty store 83 s (benchmarks/RESULTS.md): 12 ms a new fact against 0.28 ms
# a fact, so the walk pays below about a fortieth of the space (1,000 into a million: yes)
WALK_SHARE = 40
# an approximate full build's pairs against an exact one's (at most cost.MARGIN of its
# price; HNSW on text without structure about half, the probed search a quarter or less)
REBUILD_APPROXIMATE = 0.5


def _extend_space(
    t: GraphTables,
    kind: str,
    k: int,
    stored: dict,
    verify: bool,
    progress: g.Progress | None,
    count: int,
    params: str = "",
) -> bool:
    """Append-only update of one space; False when it must be rebuilt instead."""
    if not verify:
        done = _extend_cached(t, kind, k, stored, count, params)
        if done is not None:
            return done
    graphcache.drop(t.conn, kind)
    sp = _load_space(t, kind)
    n, n_old = sp.pos.size, int(np.searchsorted(sp.pos, stored["max_pos"], side="right"))
    if n_old != stored["count"]:
        return False
    digest = int(stored["digest"], 16)
    if verify and sp.digest(kind, range(n_old)) != digest:
        return False
    if n == n_old:
        return True
    k_eff = g.effective_k(k, n)
    row_of = np.full(int(sp.pos[-1]) + 1, -1, dtype=np.int64)
    row_of[sp.pos] = np.arange(n)
    rows = t.knn_through(stored["max_pos"])
    at, nbrs, coss = zip(*rows, strict=True) if rows else ((), (), ())
    mine = (row_of[np.array(at, dtype=np.int64)] >= 0).tolist()  # the other space shares the table
    nbrs, coss = tuple(compress(nbrs, mine)), tuple(compress(coss, mine))
    if len(nbrs) != n_old or any(len(b) != 4 * k_eff for b in nbrs):
        return False  # min(k, N-1) grew, or the lists are missing: not an append
    nbr_pos = _blobs(nbrs, k_eff, np.int32)
    cos = _blobs(coss, k_eff, np.float32)
    old = g.Knn(row_of[nbr_pos], cos)
    if (old.nbrs < 0).any() or (old.nbrs >= n_old).any():
        return False  # a stored list points outside the built rows
    knn, dirty = g.extend_knn(sp.X, g.string_ranks(sp.ids), old, n_old, k, progress)
    _write_knn(t, sp, knn, np.flatnonzero(dirty))
    _rewrite_edges(t, kind, sp, old, knn, dirty)
    state = _built_state(sp, (digest + sp.digest(kind, range(n_old, n))) & _MASK)
    # the lists of the rows built before keep how they were made; the new rows' are exact
    state |= {key: stored[key] for key in _BUILD_KEYS if key in stored}
    _meta_set(t, f"graph.semantic.{kind}", state)
    if params:  # the files were missing or stale: write them again for the next update
        approximate = stored.get("method", "exact") != "exact"
        graphcache.save(t.conn, kind, sp.pos, sp.ids, sp.X, knn, state | {"params": params}, approximate)
    return True


def _extend_cached(t: GraphTables, kind: str, k: int, stored: dict, count: int, params: str) -> bool | None:
    """The same update from the files beside the store (`graphcache`), reading only the new
    rows from SQLite; None when there are no usable files (the caller reads the store)."""
    if count < stored["count"]:
        return False
    k_old = g.effective_k(k, stored["count"])
    if k_old == 0 or g.effective_k(k, count) != k_old:
        return None
    cache = graphcache.load(t.conn, kind, stored | {"params": params}, k_old)
    if cache is None:
        return None
    try:
        new = _rows_after(t, kind, stored["max_pos"])
    except ValueError:
        return None  # of mixed dimensions: the full read says so
    if count != stored["count"] + new.pos.size:
        return False  # rows appeared before the last built position: not an append
    if not new.ids:
        return True
    if new.X.shape[1] != cache.vec.shape[1]:
        return None
    idb = graphcache._ids_array(new.ids)
    if idb is None:
        return None
    width = max(cache.ids.dtype.itemsize, idb.dtype.itemsize)
    ranks = graphcache.ranks_of(np.r_[cache.ids.astype(f"S{width}"), idb.astype(f"S{width}")])
    knn, dirty = graphcache.extend(cache, new.X, ranks, k_old)
    sp = _Space(np.r_[cache.pos, new.pos], [], np.zeros((0, 0), np.float32))
    _write_knn(t, sp, knn, np.flatnonzero(dirty))
    _rewrite_edges(t, kind, sp, g.Knn(cache.nbrs, cache.cos), knn, dirty)
    digest = int(stored["digest"], 16)
    state = _built_state(sp, (digest + new.digest(kind, range(new.pos.size))) & _MASK)
    state |= {key: stored[key] for key in _BUILD_KEYS if key in stored}
    _meta_set(t, f"graph.semantic.{kind}", state)
    stamped = state | {"params": params} | graphcache.stamp(t.conn, kind)  # after _meta_set: its version
    graphcache.append(cache, new.pos, new.ids, new.X, knn, dirty, stamped)
    return True


def _npmi_inputs(t: GraphTables) -> tuple[np.ndarray, np.ndarray, str]:
    """Each mention's (unit, eid), and a digest of everything NPMI reads.

    A unit is numbered by the first fact (in position order) of its note, or by the fact
    itself when it has no note, so the numbering is a function of the content alone.
    """
    return _npmi_from(*_npmi_arrays(t)[:3])


def _npmi_arrays(t: GraphTables) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, int]]:
    """Every fact's position and unit, every (pos, eid) mention, and each note's unit."""
    facts = t.notes_after()
    mentions = t.mentions_after()
    first: dict[str, int] = {}
    unit_of = np.fromiter(
        (p if note is None else first.setdefault(note, p) for p, note in facts),
        dtype=np.int64,
        count=len(facts),
    )
    fact_pos = np.fromiter((p for p, _ in facts), dtype=np.int64, count=len(facts))
    m = np.array(mentions, dtype=np.int64).reshape(-1, 2)
    return fact_pos, unit_of, m, first


def _npmi_from(
    fact_pos: np.ndarray, unit_of: np.ndarray, m: np.ndarray
) -> tuple[np.ndarray, np.ndarray, str]:
    unit = unit_of[np.searchsorted(fact_pos, m[:, 0])] if m.size else np.zeros(0, np.int64)
    h = hashlib.blake2b(digest_size=16)
    for arr in (fact_pos, unit_of, m):
        h.update(np.ascontiguousarray(arr, dtype="<i8").tobytes())
        h.update(b"|")
    return unit, m[:, 1].copy(), h.hexdigest()


def _extend_npmi(t: GraphTables, min_count: int, stored: dict, state: dict) -> bool:
    """NPMI after an append, from the inputs kept beside the store plus the new facts and
    their mentions; False when there are no usable files or it was not an append."""
    kept = graphcache.load_npmi(t.conn, stored)
    if kept is None:
        return False
    fact_pos, unit_of, m, notes, units = kept
    facts = t.notes_after(stored["max_pos"])
    mentions = t.mentions_after(stored["max_pos"])
    if (
        stored["facts"] + len(facts) != state["facts"]
        or stored["mentions"] + len(mentions) != state["mentions"]
    ):
        return False
    keys = graphcache.note_keys([note for _, note in facts if note is not None])
    if keys is None:
        return False
    at = np.searchsorted(notes, keys) if notes.size else np.zeros(len(keys), np.int64)
    known = {}
    for key, a in zip(keys.tolist(), at.tolist(), strict=True):
        if a < notes.size and notes[a] == key:
            known[key] = int(units[a])
    fresh: dict[bytes, int] = {}
    new_units = []
    it = iter(keys.tolist())
    for p, note in facts:
        if note is None:
            new_units.append(p)
        else:
            key = next(it)
            new_units.append(known[key] if key in known else fresh.setdefault(key, p))
    fact_pos = np.r_[fact_pos, np.array([p for p, _ in facts], dtype=np.int64)]
    unit_of = np.r_[unit_of, np.array(new_units, dtype=np.int64)]
    m = np.r_[m, np.array(mentions, dtype=np.int64).reshape(-1, 2)]
    if fresh:
        add = np.array(list(fresh), dtype=bytes)
        width = max(notes.dtype.itemsize if notes.size else 1, add.dtype.itemsize)
        allnotes = np.r_[notes.astype(f"S{width}"), add.astype(f"S{width}")]
        allunits = np.r_[units, np.array(list(fresh.values()), dtype=np.int64)]
        o = np.argsort(allnotes, kind="stable")
        notes, units = allnotes[o], allunits[o]
    _rebuild_npmi(t, min_count, _npmi_from(fact_pos, unit_of, m), (fact_pos, unit_of, m, notes, units))
    return True


def _rebuild_npmi(
    t: GraphTables, min_count: int, inputs: tuple | None = None, keep: tuple | None = None
) -> None:
    if inputs is None:
        fact_pos, unit_of, m, first = _npmi_arrays(t)
        inputs = _npmi_from(fact_pos, unit_of, m)
        notes = graphcache.note_keys(list(first))
        if notes is not None:
            o = np.argsort(notes, kind="stable")
            keep = (fact_pos, unit_of, m, notes[o], np.fromiter(first.values(), np.int64, len(first))[o])
    unit, eids, digest = inputs
    known, ent = np.unique(eids, return_inverse=True)
    a, b, w, n_ab = g.npmi_edges(unit, ent.ravel(), known.size, min_count)
    t.replace_npmi(zip(known[a].tolist(), known[b].tolist(), w.tolist(), n_ab.tolist(), strict=True))
    rank = g.pagerank(known.size, a, b, w)
    _meta_set(t, "graph.pagerank", dict(zip(map(str, known.tolist()), rank.tolist(), strict=True)))
    state = {"digest": digest, **_npmi_state(t)}
    _meta_set(t, "graph.npmi", state)
    graphcache.save_npmi(t.conn, keep, state)


def rebuild_graph(source: Any, config: Any, progress: g.Progress | None = None) -> GraphUpdate:
    """Recompute every edge from scratch (semantic in both spaces, NPMI, PageRank), over a
    store or a connection inside its caller's transaction."""
    t = graph_tables(source)
    heap.keep_blocks()
    added = add_lexical_embeddings(t)
    states = _space_states(t)
    # every space is rebuilt: clear them all first, so no edge of one space (a fact since
    # moved to the other) stands in the way of the other's (one edge per pair of facts)
    t.delete_semantic()
    bar = _Bar(progress, {**{s: float(states[s]["count"]) ** 2 for s in SPACES}, "npmi": 1.0})
    notes = [_rebuild_space(t, kind, config, bar.phase(kind)) for kind in SPACES]
    _rebuild_npmi(t, config.graph.npmi_min_count)
    _meta_set(t, _PARAMS, _params(config))
    bar.finish()
    return GraphUpdate(SPACES + ("npmi",), (), added, tuple(n for n in notes if n))


def _spaces_to_update(t: Any, states: dict[str, Any], verify: bool) -> dict[str, Any]:
    """Each space the graph must update, with what it stored of it (None: rebuild it, its
    rows went or shrank); with `verify`, every space, to check what it stored."""
    todo: dict[str, Any] = {}
    for kind in SPACES:
        stored = _meta_get(t, f"graph.semantic.{kind}")
        state = states[kind]
        if stored is None or stored["max_pos"] > state["max_pos"] or stored["count"] > state["count"]:
            todo[kind] = None
        elif verify or {k: stored[k] for k in state} != state:
            todo[kind] = stored
    return todo


def _update_npmi(t: Any, min_count: int, verify: bool) -> bool:
    """Extend or rebuild the NPMI edges when their inputs changed (with `verify`, when
    their digest differs); whether they were rebuilt."""
    stored = _meta_get(t, "graph.npmi")
    state = _npmi_state(t)
    if stored is None or {k: stored.get(k) for k in state} != state:
        if stored is None or not _extend_npmi(t, min_count, stored, state):
            _rebuild_npmi(t, min_count)
        return True
    if verify:
        inputs = _npmi_inputs(t)
        if inputs[2] != stored["digest"]:
            _rebuild_npmi(t, min_count, inputs)
            return True
    return False


def ensure_graph(
    source: Any, config: Any, progress: g.Progress | None = None, *, verify: bool = False
) -> GraphUpdate:
    """Bring the graph up to date, touching nothing when it already is.

    New facts appended since the last build are added incrementally; a change of
    parameters, or of rows that were already built, rebuilds the part concerned.
    """
    t = graph_tables(source)
    if _meta_get(t, _PARAMS) != _params(config):
        return rebuild_graph(t, config, progress)
    heap.keep_blocks()
    added = add_lexical_embeddings(t)
    rebuilt, extended, notes = [], [], []
    states = _space_states(t)
    todo = _spaces_to_update(t, states, verify)
    for kind in [k for k, stored in todo.items() if stored is None]:
        # Rows left this space (`embed` moved facts from the lexical space to the model's):
        # its edges go before any space is written, or an edge it kept between two moved
        # facts would collide with the new space's edge between them.
        t.delete_semantic(kind)
    bar = _Bar(progress, {**{s: float(states[s]["count"]) for s in todo}, "npmi": 1.0})
    for kind, stored in todo.items():
        walked = stored is not None and stored.get("method", "exact") != "exact"
        walked = walked and stored["count"] >= graphcache.CELLS_ABOVE
        if stored is not None and rebuild_is_cheaper(
            stored["count"], states[kind]["count"], config.graph, walked
        ):
            stored = None  # an append as large as the space: built anew, as an import into an empty store
        if stored is not None and _extend_space(
            t,
            kind,
            config.graph.k,
            stored,
            verify,
            bar.phase(kind),
            states[kind]["count"],
            _params(config),
        ):
            if stored["count"] != states[kind]["count"]:
                extended.append(kind)
        else:
            notes.append(_rebuild_space(t, kind, config, bar.phase(kind)))
            rebuilt.append(kind)
    if _update_npmi(t, config.graph.npmi_min_count, verify):
        rebuilt.append("npmi")
    if todo or rebuilt:
        bar.finish()
    return GraphUpdate(tuple(rebuilt), tuple(extended), added, tuple(n for n in notes if n))


def update_graph(
    source: Any, new_positions: Any, config: Any, progress: g.Progress | None = None
) -> GraphUpdate:
    """The import pipeline's hook after appending facts, inside the caller's transaction.

    `new_positions` is accepted for the caller's convenience but not trusted: what is new
    is read from the fingerprints (rows after the last built position), so a stale or
    off-by-one list cannot leave the graph inconsistent.
    """
    del new_positions
    return ensure_graph(source, config, progress)


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


def load_edges(store: Store) -> list[Edge]:
    """Every edge of a `Store`: semantic ones by (a, b) fact id, then NPMI ones by (a, b)
    entity key."""
    sem = []
    for x, y, w, kind in store.graph.semantic_edges_by_id():
        x, y = (x, y) if x < y else (y, x)
        sem.append(Edge("semantic", x, y, w, kind))
    npmi = []
    for x, y, w in store.graph.npmi_edges_by_key():
        x, y = (x, y) if x < y else (y, x)
        npmi.append(Edge("npmi", x, y, w))
    sem.sort(key=lambda e: (e.a, e.b))
    npmi.sort(key=lambda e: (e.a, e.b))
    return sem + npmi
