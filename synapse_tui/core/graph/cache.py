"""What an incremental graph update needs, kept beside the store where it is cheap to read.

At a million facts an update that reads every vector back out of SQLite spends most of its
time there (1.5 GB of blobs), and the exact search of 1,000 new facts against a million
(4e11 multiply-adds) alone takes longer than the update may. So a build leaves, per
embedding space, a folder beside the store (`<store>-graph/`) with:

- `<kind>.vec`: the vectors as raw float32, read memory-mapped; in a large approximate
  space grouped by cells of about 50 similar rows (two levels of spherical k-means), then
  the rows appended since, in order;
- `<kind>.nbrs` / `<kind>.cos`: each row's kNN list (int32 rows, float32 polished cosines);
- `<kind>.npz`: positions, ids, the file order, the cells' unit centres and starts;
- `<kind>.json`: the fingerprint the files belong to (the graph's state in `meta`, and its
  settings). It is written last and removed before anything else is touched, so files
  that do not match the store's graph are never used: the update then reads the store.

How new rows are searched (`extend`): in a space of up to CELLS_ABOVE rows, against every
row, so the lists are exactly the ones a full build makes. Above it (an approximate space:
1,000 new rows against a million is 4e11 multiply-adds, longer than an update may take),
a new row's candidates are the rows appended since the build, plus a walk: the rows of
its PROBES nearest cells, then the stored kNN lists of the best rows found so far, a few
rounds (the stored graph is the index). The lists of CHECK of the new rows (seeded) are
then checked against an exact search, and the walk starts from twice the cells until
their recall@10 is within NOISE of the target. Candidates are ranked by the polished
cosine and id, as everywhere; an old row's list takes a new row exactly when it beats its
k-th.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import os
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from synapse_tui.core.base.safefile import write_atomic
from synapse_tui.core.graph.knn import (
    Knn,
    _pack,
    band,
    best_per_owner,
    dots,
    extend_knn,
    nearest_centre,
    top_columns,
    top_of_blocks,
    unit_means,
    where2,
)
from synapse_tui.core.store.sqlite.store import database_file

VERSION = 1
MIN_ROWS = 20_000  # smaller spaces read back from SQLite in well under a second
# below this many rows an update searches every row (1,000 new x 200,000 x 384 is about a
# second): exact, and no cells to compute at build time
CELLS_ABOVE = 200_000
_BLOCK = 65_536
STEPS = 2  # Lloyd steps within each top-level cell
CELL = 50  # rows per cell, on average
CHECK = 50  # new rows of an approximate update whose lists are checked against exact
NOISE = 0.005  # about one standard error of a recall near 0.99 measured on CHECK * 10 slots
PROBES = 4  # cells a new fact starts its walk from (measured at a million: 2 gave 0.990, 4 0.994)
WALK = 8  # rounds of following kNN lists from a new row's nearest cells
SPREAD = 4  # the best SPREAD * k rows found so far have their lists followed
# the products of an update's search, a tile at a time: 8,192 x 4,096 float32 is 128 MB,
# whatever the number of new rows (benchmarks/bench_big_import.py)
TILE_ROWS = _BLOCK // 8
TILE_COLS = 4096
_CLOSENESS_ENTRIES = 1 << 24  # new rows x cells compared at once (64 MB)


def folder(conn: sqlite3.Connection) -> Path | None:
    """`<store>-graph` beside the store's file; None for an in-memory or temporary store.
    A store on a server has no folder beside it: its files go in this user's cache
    (`_server_folder`), and each is used only while the server's graph is the one this
    process wrote (`stamp`)."""
    if not isinstance(conn, sqlite3.Connection):
        return _server_folder(conn)
    name = database_file(conn)
    return Path(name + "-graph") if name else None


def _server_folder(conn: Any) -> Path | None:
    """One folder per server location, database and schema, under SYNAPSE_DATA_DIR (the
    tests' and benchmarks') or the platform's user cache directory."""
    where = getattr(conn, "where", None)
    if where is None:
        return None
    from synapse_tui.core.store.postgres.store import server_schema

    database, schema = server_schema(conn)
    key = hashlib.blake2b(f"{where.shown}\0{database}\0{schema}".encode(), digest_size=12).hexdigest()
    root = server_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return root / f"{key}-graph"


def server_root() -> Path:
    """Where the folders of stores on servers are: SYNAPSE_DATA_DIR/graph, else the
    platform's user cache directory (nothing there is needed: a missing file is reread)."""
    env = os.environ.get("SYNAPSE_DATA_DIR")
    if env:
        return Path(env) / "graph"
    import platformdirs

    return Path(platformdirs.user_cache_dir("synapse-tui", appauthor=False)) / "graph"


def stamp(conn: Any, kind: str) -> dict[str, str]:
    """On a server, the version of the meta row holding a space's (or NPMI's) graph state:
    the transaction that last wrote it (`xmin`). Files written with it are used only while
    it stands, so another client's rebuild that reached the same state another way (the same
    rows, other approximate lists) is never taken for ours. A file's folder is its own: {}."""
    if isinstance(conn, sqlite3.Connection):
        return {}
    key = "graph.npmi" if kind == "npmi" else f"graph.semantic.{kind}"
    from synapse_tui.core.store.postgres.store import meta_version

    return {"stamp": meta_version(conn, key)}


@dataclass
class Cache:
    """One space's files, opened: `vec` is memory-mapped, the rest in memory."""

    path: Path
    kind: str
    vec: np.ndarray  # (n, d) float32 in file order
    order: np.ndarray  # file position -> row
    nbrs: np.ndarray  # (n, k) int32 rows (memory-mapped)
    cos: np.ndarray  # (n, k) float32 (memory-mapped)
    pos: np.ndarray  # row -> fact position
    ids: np.ndarray  # row -> id, as UTF-8 bytes (numpy 'S'), for the id tie-break
    centres: np.ndarray  # (c, d) float32 unit centroids of the cells
    starts: np.ndarray  # (c + 1,) file positions where each cell starts; the tail after
    state: dict

    @functools.cached_property
    def where(self) -> np.ndarray:
        """Row -> file position (the inverse of `order`)."""
        out = np.empty(self.order.size, np.int64)
        out[self.order] = np.arange(self.order.size)
        return out


def _paths(base: Path, kind: str) -> dict[str, Path]:
    return {ext: base / f"{kind}.{ext}" for ext in ("vec", "nbrs", "cos", "npz", "json")}


def _linked(base: Path, *paths: Path) -> bool:
    """Whether the folder or one of its files is a symbolic link: the folder beside a store
    can come with the store, and a planted link would send these writes elsewhere (issue
    37), so such files are neither used nor written."""
    return any(q.is_symlink() for q in (base, *paths))


def _out(path: Path, append: bool = False):
    """A file opened for writing that is never a link's target (O_NOFOLLOW: a link there
    fails with ELOOP, an OSError the callers already take as "no files")."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | (os.O_APPEND if append else os.O_TRUNC)
    return os.fdopen(os.open(path, flags, 0o666), "ab" if append else "wb")


def drop(conn: sqlite3.Connection, kind: str) -> None:
    """Forget one space's files (before a change that would make them stale)."""
    base = folder(conn)
    if base is not None:
        with contextlib.suppress(FileNotFoundError):
            _paths(base, kind)["json"].unlink()


def _ids_array(ids: list[str]) -> np.ndarray | None:
    enc = [i.encode("utf-8") for i in ids]
    if any(b"\0" in e for e in enc):
        return None  # numpy bytes drop trailing NULs: such ids could not be ordered this way
    return np.array(enc, dtype=bytes)


def ranks_of(ids: np.ndarray) -> np.ndarray:
    """Each id's rank in string order: UTF-8 bytes sort as code points do."""
    order = np.argsort(ids, kind="stable")
    ranks = np.empty(ids.size, np.int64)
    ranks[order] = np.arange(ids.size, dtype=np.int64)
    return ranks


def partition(X: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Cells of about 100 rows by two levels of spherical k-means (a step each, seeded):
    (unit centres, cell of each row). Only the speed of later updates depends on it."""
    n = X.shape[0]
    rng = np.random.default_rng(seed)
    top = max(1, int(np.sqrt(n / 100)))
    C = X[np.sort(rng.choice(n, size=top, replace=False))]
    first = nearest_centre(X, C)
    centres: list[np.ndarray] = []
    cell = np.empty(n, np.int64)
    for t in range(top):
        rows = np.flatnonzero(first == t)
        if rows.size == 0:
            continue
        sub = max(1, rows.size // CELL)
        Ct = X[rows[np.sort(rng.choice(rows.size, size=sub, replace=False))]]
        Xt = X[rows]
        lab = nearest_centre(Xt, Ct)
        for _ in range(STEPS):
            Ct = unit_means(Xt, lab, sub, Ct)
            lab = nearest_centre(Xt, Ct)
        cell[rows] = lab + sum(len(c) for c in centres)
        centres.append(Ct)
    return np.concatenate(centres).astype(np.float32), cell


def _cells(centres: np.ndarray, cell: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """File order (rows grouped by cell) and where each cell starts (then where they end)."""
    order = np.argsort(cell, kind="stable")
    starts = np.searchsorted(cell[order], np.arange(centres.shape[0] + 1)).astype(np.int64)
    return order.astype(np.int64), starts


def save(
    conn: sqlite3.Connection,
    kind: str,
    pos: np.ndarray,
    ids: list[str],
    X: np.ndarray,
    knn: Knn,
    state: dict,
    approximate: bool = False,
    target: float = 0.99,
) -> None:
    """Write one space's files after a full build (nothing when the space is small, the
    store has no file, or the folder cannot be written: the update then reads SQLite).
    `approximate`: the lists are approximate, so a large space gets cells for its updates
    to search from, checked against `target` recall."""
    base = folder(conn)
    if base is None:
        return
    drop(conn, kind)
    state = state | stamp(conn, kind)
    idb = _ids_array(ids)
    if X.shape[0] < MIN_ROWS or idb is None or knn.nbrs.shape[1] == 0:
        return
    try:
        base.mkdir(exist_ok=True)
        p = _paths(base, kind)
        if approximate and X.shape[0] >= CELLS_ABOVE:
            centres, cell = partition(X)
            order, starts = _cells(centres, cell)
        else:  # exact: no cells, every row is searched
            centres, order, starts = (
                np.zeros((0, X.shape[1]), np.float32),
                np.arange(X.shape[0]),
                np.zeros(1, np.int64),
            )
        if _linked(base, *p.values()):
            raise OSError("a link in the graph folder")
        with _out(p["vec"]) as fh:
            for i in range(0, order.size, _BLOCK):
                fh.write(np.ascontiguousarray(X[order[i : i + _BLOCK]], dtype=np.float32).tobytes())
        probes = PROBES if centres.shape[0] else 0
        with _out(p["nbrs"]) as fh:
            knn.nbrs.astype(np.int32).tofile(fh)
        with _out(p["cos"]) as fh:
            knn.cos.astype(np.float32).tofile(fh)
        with _out(p["npz"]) as fh:
            np.savez(fh, pos=pos, ids=idb, order=order, centres=centres, starts=starts)
        _write_state(p["json"], state | {"probes": probes, "target": target}, X.shape[1], knn.nbrs.shape[1])
    except OSError:
        drop(conn, kind)


def _write_state(path: Path, state: dict, d: int, k: int) -> None:
    write_atomic(path, json.dumps({"version": VERSION, "d": d, "k": k, **state}).encode())


def load(conn: sqlite3.Connection, kind: str, stored: dict, k: int) -> Cache | None:
    """One space's files when they belong to the stored graph, else None."""
    base = folder(conn)
    if base is None:
        return None
    stored = stored | stamp(conn, kind)
    p = _paths(base, kind)
    if _linked(base, *p.values()):
        return None
    try:
        state = json.loads(p["json"].read_text())
        if (
            state.get("version") != VERSION
            or state.get("k") != k
            or any(state.get(x) != stored.get(x) for x in stored)
        ):
            return None
        n, d = int(state["count"]), int(state["d"])
        if p["vec"].stat().st_size != 4 * n * d or p["nbrs"].stat().st_size != 4 * n * k:
            return None
        with np.load(p["npz"]) as z:
            arrays = {name: z[name] for name in ("pos", "ids", "order", "centres", "starts")}
        # memory-mapped: an update reads the rows it walks, not 80 MB of lists at a million
        vec = _mapped(p["vec"], np.float32, (n, d))
        nbrs = _mapped(p["nbrs"], np.int32, (n, k))
        cos = _mapped(p["cos"], np.float32, (n, k))
    except (OSError, ValueError, KeyError, json.JSONDecodeError):
        return None
    if arrays["pos"].size != n or arrays["order"].size != n:
        return None
    return Cache(
        base,
        kind,
        vec,
        order=arrays["order"],
        nbrs=nbrs,
        cos=cos,
        state=state,
        **{x: arrays[x] for x in ("pos", "ids", "centres", "starts")},
    )


def _mapped(path: Path, dtype: type, shape: tuple[int, int]) -> np.ndarray:
    """The file, read-only and memory-mapped, as a plain array (a `np.memmap` pays Python
    overhead on every index, and an update indexes it thousands of times)."""
    if not shape[0]:
        return np.zeros(shape, dtype)
    return np.asarray(np.memmap(path, dtype=dtype, mode="r", shape=shape))


def append(
    cache: Cache, pos: np.ndarray, ids: list[str], Xn: np.ndarray, knn: Knn, changed: np.ndarray, state: dict
) -> None:
    """Bring the files up to the extended graph: the new rows go to the tail."""
    p = _paths(cache.path, cache.kind)
    idb = _ids_array(ids)
    n_old = cache.pos.size
    with contextlib.suppress(FileNotFoundError):
        p["json"].unlink()
    if idb is None:
        return
    try:
        if _linked(cache.path, *p.values()):
            raise OSError("a link in the graph folder")
        with _out(p["vec"], append=True) as fh:
            fh.write(np.ascontiguousarray(Xn, dtype=np.float32).tobytes())
        rows = np.flatnonzero(changed[:n_old])
        k = knn.nbrs.shape[1]
        for name, arr, dtype in (("nbrs", knn.nbrs, np.int32), ("cos", knn.cos, np.float32)):
            mm = np.memmap(p[name], dtype=dtype, mode="r+", shape=(n_old, k))
            mm[rows] = arr[rows].astype(dtype)
            mm.flush()
            del mm
            with _out(p[name], append=True) as fh:
                fh.write(np.ascontiguousarray(arr[n_old:], dtype=dtype).tobytes())
        width = max(cache.ids.dtype.itemsize, idb.dtype.itemsize)
        with _out(p["npz"]) as fh:
            np.savez(
                fh,
                pos=np.r_[cache.pos, pos],
                ids=np.r_[cache.ids.astype(f"S{width}"), idb.astype(f"S{width}")],
                order=np.r_[cache.order, np.arange(n_old, n_old + pos.size)],
                centres=cache.centres,
                starts=cache.starts,
            )
        keep = {x: cache.state[x] for x in ("probes", "target")}
        _write_state(p["json"], state | keep, int(cache.vec.shape[1]), k)
    except OSError:
        with contextlib.suppress(FileNotFoundError):
            p["json"].unlink()


def extend(cache: Cache, Xn: np.ndarray, ranks: np.ndarray, k: int) -> tuple[Knn, np.ndarray]:
    """The kNN lists after appending rows `Xn` (rows n_old..), and which rows changed.

    `ranks`: every row's rank in id order (old and new). Exact when the space has no cells;
    otherwise new rows search the tail and their nearest cells, widening until the lists
    of up to CHECK of them (seeded) reach the recall the files were made for.
    """
    V, order = cache.vec, cache.order
    m = Xn.shape[0]
    Xn = np.ascontiguousarray(Xn, dtype=np.float32)
    ncell = cache.centres.shape[0]
    probes = int(cache.state.get("probes", 0))
    check = np.sort(np.random.default_rng(m).choice(m, size=min(m, CHECK), replace=False))
    near = np.zeros((m, 0), np.int64)
    target = cache.state.get("target", 0.99)
    if probes == 0 or probes >= ncell:
        return _extend_exact(cache, Xn, ranks, k)
    with ThreadPoolExecutor(1) as pool:
        # the checked rows' exact answer: reading the whole file takes most of a second at a
        # million, so it is read in a thread while the walk (mostly Python) runs
        truth = pool.submit(_truth, V, order, Xn, check, 2 * k) if 0 < probes < ncell else None
        while True:
            if probes >= ncell:
                return _extend_exact(cache, Xn, ranks, k)
            if near.shape[1] < probes:  # one partition serves three widenings
                near = _nearest_cells(Xn, cache.centres, min(ncell, 8 * probes))
            out = _search(cache, Xn, ranks, k, near[:, :probes])
            if out is not None and truth is not None:
                if _recall(truth.result(), out[0], V.shape[0], check, k, V.shape[1]) >= target - NOISE:
                    return out
            probes *= 2


def _extend_exact(cache: Cache, Xn: np.ndarray, ranks: np.ndarray, k: int) -> tuple[Knn, np.ndarray]:
    """Every new row against every row, as an update read from the store does it
    (`knn.extend_knn`: tiles of ROW_BLOCK x COL_BLOCK, a running top-k per row with a
    bar, the old rows' k-th as their floor), over the file's rows put back in row order
    beside the new ones: n x d floats, never a product of the new rows with each other.
    The same lists as a full exact build, bit for bit."""
    n_old, d = cache.vec.shape
    if cache.nbrs.shape[0] < n_old or n_old + Xn.shape[0] - 1 < k:
        raise ValueError("fewer rows than the lists are long")
    X = np.empty((n_old + Xn.shape[0], d), np.float32)
    for f0 in range(0, n_old, _BLOCK):  # the file read in order, a block at a time
        X[cache.order[f0 : f0 + _BLOCK]] = cache.vec[f0 : f0 + _BLOCK]
    X[n_old:] = Xn
    return extend_knn(X, ranks, Knn(cache.nbrs.astype(np.int64), cache.cos), n_old, k)


def _nearest_cells(Xn: np.ndarray, centres: np.ndarray, p: int) -> np.ndarray:
    """Each new row's p nearest cells, a block of rows at a time: the whole m x cells
    closeness of 200,000 new rows against a million rows' 20,000 cells would be 16 GB."""
    m, c = Xn.shape[0], centres.shape[0]
    step = max(1, _CLOSENESS_ENTRIES // max(c, 1))
    out = np.empty((m, p), np.int64)
    for r0 in range(0, m, step):
        out[r0 : r0 + step] = top_columns(Xn[r0 : r0 + step] @ centres.T, p)
    return out


def _truth(
    V: np.ndarray, order: np.ndarray, Xn: np.ndarray, rows: np.ndarray, width: int
) -> tuple[np.ndarray, np.ndarray]:
    """The `width` best other rows of new rows `rows` and their sgemm cosines, exactly (the
    file is read once, in blocks)."""
    n_old = V.shape[0]
    Q = Xn[rows]
    S = Q @ Xn.T
    S[np.arange(rows.size), rows] = -np.inf
    blocks = ((Q @ V[t0 : t0 + _BLOCK].T, order[t0 : t0 + _BLOCK]) for t0 in range(0, n_old, _BLOCK))
    return top_of_blocks(itertools.chain([(S, n_old + np.arange(Xn.shape[0]))], blocks), rows.size, width)


def _recall(
    truth: tuple[np.ndarray, np.ndarray], knn: Knn, n_old: int, rows: np.ndarray, k: int, d: int
) -> float:
    """Recall@k of new rows' lists: a row's list misses one true neighbour for each row
    outside it whose cosine beats its k-th by more than sgemm's error. `truth` holds each
    row's 2k best, which is enough: beyond 2k such rows, k of them are outside a list of k."""
    idx, vals = truth
    mine = knn.nbrs[n_old + rows]
    thr = knn.cos[n_old + rows, k - 1] + np.float32(band(d))
    outside = ~(idx[:, :, None] == mine[:, None, :]).any(axis=2)
    missed = np.minimum(((vals > thr[:, None]) & outside).sum(axis=1), k)
    return 1.0 - float(missed.sum()) / (k * rows.size)


def _search(
    cache: Cache, Xn: np.ndarray, ranks: np.ndarray, k: int, near: np.ndarray
) -> tuple[Knn, np.ndarray] | None:
    """New rows against each other, the tail, and, walking from their nearest cells, the
    rest; None when a new row found fewer than k candidates."""
    V = cache.vec
    n_old, m = V.shape[0], Xn.shape[0]
    eps = np.float32(band(V.shape[1]))
    kth_old = cache.cos[:, k - 1]
    top = np.full((m, k), -np.inf, np.float32)  # each new row's k best sgemm values so far
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (new row, candidate, sgemm cos)
    pairs_old: list[np.ndarray] = []  # (old row, new row) where the new row may enter

    def offer(S: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> None:
        """S[b, a] = cos(new row cols[b], rows[a]); rows old or new, cols indices into Xn.
        One new row's candidates lie side by side: a partition along them reads memory in
        order (along the other axis it took most of an update's time)."""
        r = S.shape[1]
        best = np.partition(S, r - k, axis=1)[:, r - k :] if r > k else S
        merged = np.concatenate([top[cols], best], axis=1)
        top[cols] = np.partition(merged, merged.shape[1] - k, axis=1)[:, merged.shape[1] - k :]
        floor = top[cols].min(axis=1) - 2 * eps
        b, a = where2(S >= floor[:, None])
        if a.size:
            found.append((cols[b], rows[a], S[b, a]))
        old = np.flatnonzero(rows < n_old)
        if old.size:
            of_old = S if old.size == r else S[:, old]  # a tile is all old rows or all new
            b, a = where2(of_old >= (kth_old[rows[old]] - eps)[None, :])
            if a.size:
                pairs_old.append(np.stack([rows[old][a], cols[b] + n_old], axis=1))

    everyone = np.arange(m)
    _offer_all(cache, Xn, offer)
    if near.shape[1]:
        seen = np.zeros(n_old, bool)
        # the tail's rows were offered above: offered again from a walk, a pair would count
        # twice among a row's k best so far and crowd out a candidate
        celled = cache.where < int(cache.starts[-1])
        for i in range(m):
            S, rows = _walk(V, cache, seen, near[i], Xn[i], k)
            mine = celled[rows]
            offer(S[None, mine], rows[mine], everyone[i : i + 1])
    return _merge(cache, Xn, ranks, k, top, found, pairs_old)


def _offer_all(cache: Cache, Xn: np.ndarray, offer: Any) -> None:
    """Every new row against every new row and every row of the tail."""
    V, order = cache.vec, cache.order
    n_old, m = V.shape[0], Xn.shape[0]
    new_rows = np.arange(n_old, n_old + m, dtype=np.int64)
    everyone = np.arange(m)
    # tiles of at most TILE_ROWS x TILE_COLS products (128 MB): never the m x m of the new
    # rows against each other, nor a block of old rows against every new row (issue 37:
    # 47,000 new rows were an 8.8 GB product), so memory does not grow with m * n
    for c0 in range(0, m, TILE_COLS):
        c1 = min(c0 + TILE_COLS, m)
        cols, Xc = everyone[c0:c1], Xn[c0:c1]
        for r0 in range(0, m, TILE_ROWS):
            r1 = min(r0 + TILE_ROWS, m)
            S = Xc @ Xn[r0:r1].T
            lo, hi = max(r0, c0), min(r1, c1)
            if lo < hi:  # no self-pairs
                S[np.arange(lo, hi) - c0, np.arange(lo, hi) - r0] = -np.inf
            offer(S, new_rows[r0:r1], cols)
        for t0 in range(int(cache.starts[-1]), n_old, TILE_ROWS):
            t1 = min(t0 + TILE_ROWS, n_old)
            offer(Xc @ V[t0:t1].T, order[t0:t1], cols)


def _walk(
    V: np.ndarray, cache: Cache, seen: np.ndarray, cells: np.ndarray, x: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """One new row's candidates and their cosines: the rows of its nearest cells, then the
    kNN lists of the best rows found so far, until they lead nowhere new (the graph is the
    index). `seen`: all False on entry and again on return (one mark array serves every
    new row)."""
    spans = [(int(cache.starts[c]), int(cache.starts[c + 1])) for c in cells.tolist()]
    rows = [cache.order[np.concatenate([np.arange(a, b) for a, b in spans])]]
    S = [_rows(V, spans) @ x]
    width = SPREAD * k
    best, vals = rows[0][:0], S[0][:0]  # the best `width` so far; ties in the order found
    seen[rows[0]] = True
    for _ in range(WALK):
        best, vals = np.r_[best, rows[-1]], np.r_[vals, S[-1]]
        top = np.argsort(-vals, kind="stable")[:width]
        best, vals = best[top], vals[top]
        nxt = cache.nbrs[best].ravel()
        nxt = np.unique(nxt[~seen[nxt]])
        if nxt.size == 0:
            break
        seen[nxt] = True
        f = cache.where[nxt]
        srt = np.argsort(f)  # read the file in order
        rows.append(nxt[srt])
        S.append(V[f[srt]] @ x)
    visited = np.concatenate(rows)
    seen[visited] = False
    return np.concatenate(S), visited


def _rows(V: np.ndarray, spans: list[tuple[int, int]]) -> np.ndarray:
    return np.concatenate([V[a:b] for a, b in spans])


def _merge(
    cache: Cache, Xn: np.ndarray, ranks: np.ndarray, k: int, top: np.ndarray, found: list, pairs_old: list
) -> tuple[Knn, np.ndarray]:
    n_old, m = cache.vec.shape[0], Xn.shape[0]
    n = n_old + m
    nbrs = np.empty((n, k), np.int64)
    cos = np.empty((n, k), np.float32)
    nbrs[:n_old], cos[:n_old] = cache.nbrs, cache.cos
    eps = np.float32(band(Xn.shape[1]))
    where = cache.where

    def vectors(rows: np.ndarray) -> np.ndarray:
        out = np.empty((rows.size, Xn.shape[1]), np.float32)
        old = rows < n_old
        f = where[rows[old]]
        srt = np.argsort(f)
        got = np.empty((f.size, Xn.shape[1]), np.float32)
        got[srt] = cache.vec[f[srt]]
        out[old] = got
        out[~old] = Xn[rows[~old] - n_old]
        return out

    # new rows: every candidate within the band of the k-th, polished, best k by (cos, id)
    c, r, v = (np.concatenate(x) for x in zip(*found, strict=True))
    keep = v >= top.min(axis=1)[c] - 2 * eps
    c, r = c[keep], r[keep]
    o = np.lexsort((r, c))
    c, r = c[o], r[o]
    uniq = np.r_[True, (c[1:] != c[:-1]) | (r[1:] != r[:-1])]
    c, r = c[uniq], r[uniq]
    pol = _pairs(Xn[c], vectors(r))
    take = best_per_owner(c, _pack(pol, ranks[r]), m, k)
    nbrs[n_old:], cos[n_old:] = r[take], pol[take]
    changed = np.zeros(n, bool)
    changed[n_old:] = True
    if pairs_old:
        P = np.concatenate(pairs_old)
        P = P[np.unique(P[:, 0] * m + (P[:, 1] - n_old), return_index=True)[1]]  # by (old, new)
        olds = np.unique(P[:, 0])
        pol = _pairs(vectors(P[:, 0]), Xn[P[:, 1] - n_old])
        # every such old row at once: its list and its new candidates, best k by (cos, id)
        had_nbrs, had_cos = cache.nbrs[olds], cache.cos[olds]
        owner = np.r_[np.repeat(np.arange(olds.size), k), np.searchsorted(olds, P[:, 0])]
        rows = np.r_[had_nbrs.ravel(), P[:, 1]]
        vals = np.r_[had_cos.ravel(), pol]
        take = best_per_owner(owner, _pack(vals, ranks[rows]), olds.size, k)
        new_nbrs, new_cos = rows[take], vals[take]
        moved = (new_nbrs != had_nbrs).any(axis=1)
        nbrs[olds[moved]], cos[olds[moved]] = new_nbrs[moved], new_cos[moved]
        changed[olds[moved]] = True
    return Knn(nbrs, cos), changed


def _pairs(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """float32 cos of each row of A with the same row of B, by `knn.dots` as a full build's
    `polished` computes it, so the bits match."""
    out = np.empty(A.shape[0], np.float32)
    for i in range(0, A.shape[0], 512):
        out[i : i + 512] = dots(A[i : i + 512], B[i : i + 512])
    return out


def note_keys(notes: list[str]) -> np.ndarray | None:
    """Notes as UTF-8 bytes (numpy 'S', which sorts and compares as the strings do)."""
    enc = [x.encode("utf-8") for x in notes]
    if any(b"\0" in e for e in enc):
        return None
    return np.array(enc, dtype=bytes) if enc else np.zeros(0, dtype="S1")


def save_npmi(conn: sqlite3.Connection, keep: tuple | None, state: dict) -> None:
    """NPMI's inputs (every fact's position and unit, every mention, each note's unit)
    beside the store, for the next append; nothing for a small store."""
    base = folder(conn)
    if base is None:
        return
    path, meta = base / "npmi.npz", base / "npmi.json"
    with contextlib.suppress(FileNotFoundError):
        meta.unlink()
    if keep is None or keep[0].size < MIN_ROWS:
        return
    state = state | stamp(conn, "npmi")
    try:
        base.mkdir(exist_ok=True)
        if _linked(base, path, meta):
            raise OSError("a link in the graph folder")
        fact_pos, unit_of, m, notes, units = keep
        with _out(path) as fh:
            np.savez(fh, fact_pos=fact_pos, unit_of=unit_of, m=m, notes=notes, units=units)
        write_atomic(meta, json.dumps({"version": VERSION, **state}).encode())
    except OSError:
        with contextlib.suppress(FileNotFoundError):
            meta.unlink()


def load_npmi(conn: sqlite3.Connection, stored: dict) -> tuple | None:
    base = folder(conn)
    if base is None:
        return None
    stored = stored | stamp(conn, "npmi")
    if _linked(base, base / "npmi.json", base / "npmi.npz"):
        return None
    try:
        state = json.loads((base / "npmi.json").read_text())
        if state.get("version") != VERSION or any(state.get(x) != stored.get(x) for x in stored):
            return None
        with np.load(base / "npmi.npz") as z:
            kept = tuple(z[x] for x in ("fact_pos", "unit_of", "m", "notes", "units"))
    except (OSError, ValueError, KeyError, json.JSONDecodeError):
        return None
    if kept[0].size != stored.get("facts") or kept[2].shape[0] != stored.get("mentions"):
        return None
    return kept
