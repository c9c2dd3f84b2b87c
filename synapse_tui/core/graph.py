"""The neighbour graph's arithmetic (SPEC section 3): exact mutual-kNN and clamped NPMI.

Pure numpy over arrays; the store-facing code lives in `graphstore`. Rows are indices
into the arrays the caller passes; `ranks[i]` is row i's rank in string order of fact ids,
the secondary key that breaks cosine ties (SPEC 3.1: ties go to the smaller id).

Exactness. Each candidate (i, j) is ranked by the unique integer key
`(ordered_bits(cos) << 32) | (2**32 - 1 - ranks[j])`, so "larger key" is exactly "higher
cosine, then smaller id". Every ordered pair is offered to row i's running top-k once;
blocks only skip entries strictly below a row's current k-th cosine, which can never
enter its top-k. Cosines are float32 (BLAS sgemm); weights are float64 from them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

Progress = Callable[[int, int], None]

ROW_BLOCK = 1024
COL_BLOCK = 8192
# float32 cosines of exact duplicates land within a few ulps of 1; a mean that close to 1
# is the SPEC's "mu >= 1" case, not a 0/0 to be decided by rounding noise.
MU_ONE_TOL = 1e-6
_EMPTY = np.iinfo(np.int64).min
_LOW = np.int64(0xFFFFFFFF)


def validate_embedding(vec: object, expected_dim: int | None) -> str | None:
    """Why `vec` cannot be a fact's embedding, or None when it can (SPEC 3.1, 5)."""
    if isinstance(vec, np.ndarray):
        if vec.ndim != 1 or vec.size == 0 or not np.issubdtype(vec.dtype, np.number):
            return "must be a non-empty list of numbers"
        arr = vec.astype(np.float64)
    else:
        if not isinstance(vec, (list, tuple)) or not vec:
            return "must be a non-empty list of numbers"
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vec):
            return "must be a non-empty list of numbers"
        try:
            arr = np.asarray(vec, dtype=np.float64)
        except OverflowError:
            return "contains a number too large for a float"
    if expected_dim is not None and arr.size != expected_dim:
        return f"has dimension {arr.size}, expected {expected_dim}"
    if not np.all(np.isfinite(arr)):
        return "contains NaN or infinity"
    if not np.any(arr):
        return "is a zero vector"
    unit = normalise(arr[None, :])
    if not np.all(np.isfinite(unit)) or not np.any(unit):
        return "cannot be normalised (its entries are too small or too large)"
    return None


def normalise(X: np.ndarray) -> np.ndarray:
    """Rows L2-normalised to float32, scaled first so huge or tiny entries do not overflow."""
    X = np.asarray(X, dtype=np.float64)
    scale = np.abs(X).max(axis=1, keepdims=True)
    scale[scale == 0] = 1.0
    X = X / scale
    norm = np.linalg.norm(X, axis=1, keepdims=True)
    norm[norm == 0] = 1.0
    return (X / norm).astype(np.float32)


def string_ranks(ids: Sequence[str]) -> np.ndarray:
    """Each id's rank in string (code point) order, the tie-break of SPEC 3.1."""
    order = sorted(range(len(ids)), key=ids.__getitem__)
    ranks = np.empty(len(ids), dtype=np.int64)
    ranks[np.asarray(order, dtype=np.int64)] = np.arange(len(ids), dtype=np.int64)
    return ranks


def effective_k(k: int, n: int) -> int:
    return max(0, min(int(k), n - 1))


@dataclass(frozen=True)
class Knn:
    """Each row's exact k nearest rows, best first (descending cos, then ascending rank)."""

    nbrs: np.ndarray  # int64 (N, k) row indices
    cos: np.ndarray  # float32 (N, k)


def _pack(vals: np.ndarray, cand_ranks: np.ndarray) -> np.ndarray:
    bits = (vals.astype(np.float32) + np.float32(0.0)).view(np.int32)  # -0.0 -> +0.0
    ordered = np.where(bits >= 0, bits, bits ^ np.int32(0x7FFFFFFF)).astype(np.int64)
    return (ordered << 32) | (_LOW - cand_ranks)


def _unpack_cos(keys: np.ndarray) -> np.ndarray:
    ordered = (keys >> 32).astype(np.int32)
    bits = np.where(ordered >= 0, ordered, ordered ^ np.int32(0x7FFFFFFF))
    return bits.view(np.float32)


def _unpack_rank(keys: np.ndarray) -> np.ndarray:
    return _LOW - (keys & _LOW)


class _TopK:
    """Running exact top-k per row, as packed keys plus the k-th cosine as a filter."""

    def __init__(self, n: int, k: int, ranks: np.ndarray) -> None:
        self.k = k
        self.ranks = ranks
        self.keys = np.full((n, k), _EMPTY, dtype=np.int64)
        self.thr = np.full(n, -np.inf, dtype=np.float32)

    def seed(self, rows: np.ndarray, nbrs: np.ndarray, cos: np.ndarray) -> None:
        self.keys[rows] = _pack(cos, self.ranks[nbrs])
        self._refresh(rows)

    def _refresh(self, rows: np.ndarray) -> None:
        last = self.keys[rows, self.k - 1]
        self.thr[rows] = np.where(last == _EMPTY, np.float32(-np.inf), _unpack_cos(last))

    def offer(self, rows: np.ndarray, cols: np.ndarray, S: np.ndarray, col0: int | None = None) -> None:
        """Offer S[a, b] = cos(rows[a], cols[b]) to the rows.

        `col0`: the tile's columns are the contiguous rows col0.. and may contain the rows
        themselves, whose self-pairs are excluded.
        """
        k = self.k
        if col0 is not None:  # self-pairs must not count towards a block's k-th value either
            own = rows - col0
            inside = np.flatnonzero((own >= 0) & (own < S.shape[1]))
            S[inside, own[inside]] = -np.inf
        t = self.thr[rows]
        sel = np.flatnonzero(S.max(axis=1) >= t)
        if sel.size == 0:
            return
        S2 = S if sel.size == len(rows) else S[sel]
        t2 = t[sel]
        mask = S2 >= t2[:, None]
        if S2.shape[1] > 4 * k:
            heavy = np.flatnonzero(np.count_nonzero(mask, axis=1) > 4 * k)
            if heavy.size:
                H = S2[heavy]
                kth = np.partition(H, H.shape[1] - k, axis=1)[:, H.shape[1] - k]
                mask[heavy] = H >= np.maximum(kth, t2[heavy])[:, None]
        if col0 is not None:
            own = rows[sel] - col0
            inside = (own >= 0) & (own < S.shape[1])
            mask[np.flatnonzero(inside), own[inside]] = False
        r, c = np.nonzero(mask)
        if r.size == 0:
            return
        keys = _pack(S2[r, c], self.ranks[cols[c]])
        order = np.lexsort((-keys, r))
        r, keys = r[order], keys[order]
        starts = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
        sizes = np.diff(np.r_[starts, r.size])
        within = np.arange(r.size) - np.repeat(starts, sizes)
        keep = within < k
        group = np.repeat(np.arange(starts.size), sizes)[keep]
        grows = rows[sel[r[starts]]]
        M = np.full((starts.size, 2 * k), _EMPTY, dtype=np.int64)
        M[:, :k] = self.keys[grows]
        M[group, k + within[keep]] = keys[keep]
        M.sort(axis=1)
        self.keys[grows] = M[:, : k - 1 : -1] if k > 0 else M[:, :0]
        self._refresh(grows)

    def result(self, rank_to_row: np.ndarray) -> Knn:
        if self.keys.size and (self.keys == _EMPTY).any():
            raise AssertionError("top-k left unfilled; k must be min(k, N-1)")
        return Knn(rank_to_row[_unpack_rank(self.keys)], _unpack_cos(self.keys))


def _locality_order(X: np.ndarray) -> np.ndarray:
    """A row order that puts similar rows in the same blocks (two spherical k-means steps).

    Only the processing order changes, never the result: good early thresholds let whole
    tiles be skipped by their row/column maxima. Seeded, so runs are reproducible.
    """
    n = X.shape[0]
    if n <= 2 * ROW_BLOCK:
        return np.arange(n, dtype=np.int64)
    rng = np.random.default_rng(0)
    C = X[rng.choice(n, size=max(2, n // 256), replace=False)]
    for step in range(2):
        label = np.concatenate([np.argmax(X[i : i + 8192] @ C.T, axis=1) for i in range(0, n, 8192)])
        if step == 0:
            order = np.argsort(label, kind="stable")
            used, starts = np.unique(label[order], return_index=True)
            C = C.copy()
            C[used] = normalise(np.add.reduceat(X[order], starts, axis=0))
    return np.argsort(label, kind="stable").astype(np.int64)


def exact_knn(X: np.ndarray, ranks: np.ndarray, k: int, progress: Progress | None = None) -> Knn:
    """Exact kNN of every row of the normalised float32 matrix X, k = min(k, N-1).

    Blockwise over the upper triangle: each tile X[I] @ X[J].T is computed once and
    offered to the rows of I and (transposed) to the rows of J, so memory stays at one
    ROW_BLOCK x COL_BLOCK tile and the flops are half a full X @ X.T. The diagonal tiles
    go first so every row has a threshold before the off-diagonal tiles are filtered.
    """
    n = X.shape[0]
    k = effective_k(k, n)
    if k == 0:
        return Knn(np.zeros((n, 0), np.int64), np.zeros((n, 0), np.float32))
    perm = _locality_order(X)
    Xp = np.ascontiguousarray(X[perm], dtype=np.float32)
    top = _TopK(n, k, ranks[perm])
    idx = np.arange(n, dtype=np.int64)
    starts = range(0, n, ROW_BLOCK)
    total = len(starts) + sum(-(-(n - min(s + ROW_BLOCK, n)) // COL_BLOCK) for s in starts)
    done = 0
    for i0 in starts:
        i1 = min(i0 + ROW_BLOCK, n)
        top.offer(idx[i0:i1], idx[i0:i1], Xp[i0:i1] @ Xp[i0:i1].T, col0=i0)
        done += 1
        if progress:
            progress(done, total)
    for i0 in starts:
        i1 = min(i0 + ROW_BLOCK, n)
        rows = idx[i0:i1]
        for j0 in range(i1, n, COL_BLOCK):
            j1 = min(j0 + COL_BLOCK, n)
            S = Xp[i0:i1] @ Xp[j0:j1].T
            _offer_columns(top, S, rows, idx[j0:j1])
            top.offer(rows, idx[j0:j1], S)
            done += 1
            if progress:
                progress(done, total)
    knn = top.result(np.argsort(ranks[perm]))
    nbrs = np.empty_like(knn.nbrs)
    cos = np.empty_like(knn.cos)
    nbrs[perm] = perm[knn.nbrs]
    cos[perm] = knn.cos
    return Knn(nbrs, cos)


def _offer_columns(top: _TopK, S: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> None:
    hot = np.flatnonzero(S.max(axis=0) >= top.thr[cols])
    if hot.size:
        top.offer(cols[hot], rows, np.ascontiguousarray(S[:, hot].T))


def extend_knn(
    X: np.ndarray, ranks: np.ndarray, old: Knn, n_old: int, k: int, progress: Progress | None = None
) -> tuple[Knn, np.ndarray]:
    """kNN of all rows after appending rows n_old.. to X, and which rows' lists changed.

    Exact because old-old cosines do not change: an old row's new list is the top-k of
    (its old list) + (the new rows), and the (cos, id) order is total and does not depend
    on how ranks are numbered, so re-keying the old lists with the new ranks keeps them
    exact. Only new-vs-all tiles are computed. Requires the old lists to be full at the
    new effective k (the caller rebuilds when min(k, N-1) grew).
    """
    X = np.ascontiguousarray(X, dtype=np.float32)
    n = X.shape[0]
    k = effective_k(k, n)
    if old.nbrs.shape != (n_old, k):
        raise ValueError("old kNN lists do not match the new effective k; rebuild instead")
    top = _TopK(n, k, ranks)
    idx = np.arange(n, dtype=np.int64)
    if k == 0:
        return Knn(np.zeros((n, 0), np.int64), np.zeros((n, 0), np.float32)), np.ones(n, bool)
    top.seed(idx[:n_old], old.nbrs, old.cos)
    before = top.keys[:n_old].copy()
    starts = range(n_old, n, ROW_BLOCK)
    total, done = -(-(n - n_old) // ROW_BLOCK) * -(-n // COL_BLOCK), 0
    for i0 in starts:
        i1 = min(i0 + ROW_BLOCK, n)
        rows = idx[i0:i1]
        for j0 in range(0, n, COL_BLOCK):
            j1 = min(j0 + COL_BLOCK, n)
            S = X[i0:i1] @ X[j0:j1].T
            top.offer(rows, idx[j0:j1], S, col0=j0)
            if j0 < n_old:
                c1 = min(j1, n_old) - j0
                _offer_columns(top, S[:, :c1], rows, idx[j0 : j0 + c1])
            done += 1
            if progress:
                progress(done, total)
    changed = np.ones(n, dtype=bool)
    changed[:n_old] = (top.keys[:n_old] != before).any(axis=1)
    return top.result(np.argsort(ranks)), changed


def mutual_edges(knn: Knn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mutual-kNN edges (a < b as rows) with local-baseline weights > 0 (SPEC 3.1)."""
    nbrs, cos = knn.nbrs, knn.cos.astype(np.float64)
    n, k = nbrs.shape
    if n == 0 or k == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64)
    cos = np.clip(cos, -1.0, 1.0)
    mu = cos.mean(axis=1)
    dup = mu >= 1.0 - MU_ONE_TOL
    denom = np.where(dup, 1.0, 1.0 - mu)
    w = np.where(dup[:, None], 1.0, np.clip((cos - mu[:, None]) / denom[:, None], 0.0, 1.0))
    i = np.repeat(np.arange(n, dtype=np.int64), k)
    j = nbrs.ravel().astype(np.int64)
    w = w.ravel()
    fwd = i * n + j
    order = np.argsort(fwd)
    sorted_fwd = fwd[order]
    rev = j * n + i
    at = np.minimum(np.searchsorted(sorted_fwd, rev), sorted_fwd.size - 1)
    mutual = (sorted_fwd[at] == rev) & (i < j)
    weight = (w[mutual] + w[order[at[mutual]]]) / 2.0
    a, b = i[mutual], j[mutual]
    keep = weight > 0.0
    return a[keep], b[keep], weight[keep]


def npmi_edges(
    unit: np.ndarray, entity: np.ndarray, n_entities: int, min_count: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Clamped NPMI over (unit, entity) incidences (SPEC 3.2): a < b, weight > 0, n_ab.

    Duplicate incidences are ignored. N counts units with at least one entity.
    """
    inc = np.unique(np.stack([np.asarray(unit, np.int64), np.asarray(entity, np.int64)], axis=1), axis=0)
    empty = (np.zeros(0, np.int64),) * 2 + (np.zeros(0, np.float64), np.zeros(0, np.int64))
    if inc.shape[0] == 0:
        return empty
    u, e = inc[:, 0], inc[:, 1]
    n_units = np.unique(u).size
    n_x = np.bincount(e, minlength=n_entities)
    starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])
    sizes = np.diff(np.r_[starts, u.size])
    pos_in = np.arange(u.size) - np.repeat(starts, sizes)
    after = np.repeat(sizes, sizes) - pos_in - 1  # partners later in the same unit
    left = np.repeat(np.arange(u.size), after)
    offs = np.arange(left.size) - np.repeat(np.cumsum(after) - after, after) + 1
    a, b = e[left], e[left + offs]
    if a.size == 0:
        return empty
    pair, n_ab = np.unique(a * n_entities + b, return_counts=True)
    ok = n_ab >= max(1, int(min_count))
    pair, n_ab = pair[ok], n_ab[ok]
    a, b = pair // n_entities, pair % n_entities
    N = float(n_units)
    p_xy = n_ab / N
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(p_xy / ((n_x[a] / N) * (n_x[b] / N)))
        val = np.where(n_ab == n_units, 1.0, pmi / -np.log(p_xy))
    w = np.clip(val, 0.0, 1.0)
    keep = w > 0.0
    return a[keep], b[keep], w[keep], n_ab[keep]
