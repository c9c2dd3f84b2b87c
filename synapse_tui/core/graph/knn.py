"""Exact k-nearest-neighbour lists over normalised embeddings, blockwise (SPEC 3.1).

Rows are indices into the matrix the caller passes; `ranks[i]` is row i's rank in string
order of fact ids, the key that breaks cosine ties (ties go to the smaller id).

How it stays exact:
- Order. A candidate j of row i is ranked by the unique integer key
  `(ordered_bits(cos) << 32) | (2**32 - 1 - ranks[j])`: a larger key is exactly "higher
  cosine, then smaller id".
- Search. Tiles X[I] @ X[J].T (float32 sgemm) are offered to a running top-(k + SLACK)
  per row; a tile entry is skipped only when it is below the row's current
  (k + SLACK)-th value (or, for an extended list, below the old k-th value minus BAND),
  so it cannot belong to the final top-k.
- Decision. sgemm rounds differently for different tile shapes, so the final choice is
  made on "polished" cosines: a float64 sum of exact float64 products, rounded once to
  float32, the same whatever the tiling. The top-k is taken from the buffer by polished
  key. A row whose buffer edge lies within BAND (a bound on sgemm's error) of its
  polished k-th value is re-scanned against every row, so rounding can never decide
  membership: exact ties (duplicates) go to the smaller id, full builds and incremental
  updates agree bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

Progress = Callable[[int, int], None]

ROW_BLOCK = 1024
COL_BLOCK = 8192
SLACK = 3
_EMPTY = np.iinfo(np.int64).min
_ASSIGN_ENTRIES = 1 << 24  # products held at once when assigning rows to centres (64 MB)
_LOW = np.int64(0xFFFFFFFF)
_LOWEST = np.finfo(np.float32).min


@dataclass(frozen=True)
class Knn:
    """Each row's exact k nearest rows, best first (descending cos, then ascending rank)."""

    nbrs: np.ndarray  # int64 (N, k) row indices
    cos: np.ndarray  # float32 (N, k), polished


def normalise(X: np.ndarray) -> np.ndarray:
    """Rows L2-normalised to float32, scaled first so huge or tiny entries do not overflow."""
    X = np.asarray(X, dtype=np.float64)
    if X.size == 0:
        return X.astype(np.float32)
    scale = np.maximum(X.max(axis=1, keepdims=True), -X.min(axis=1, keepdims=True))  # max |x|
    scale[scale == 0] = 1.0
    X = X / scale
    norm = np.sqrt(np.add.reduce(X * X, axis=1, keepdims=True))  # np.linalg.norm's own sum
    norm[norm == 0] = 1.0
    X /= norm
    return X.astype(np.float32)


def string_ranks(ids: Sequence[str]) -> np.ndarray:
    """Each id's rank in string (code point) order, the tie-break of SPEC 3.1."""
    order = sorted(range(len(ids)), key=ids.__getitem__)
    ranks = np.empty(len(ids), dtype=np.int64)
    ranks[np.asarray(order, dtype=np.int64)] = np.arange(len(ids), dtype=np.int64)
    return ranks


def effective_k(k: int, n: int) -> int:
    return max(0, min(int(k), n - 1))


def band(d: int) -> float:
    """Bound on |sgemm cos - polished cos| for unit vectors of dimension d, with margin."""
    return d * 2.0**-24 + 2.0**-22


def where2(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of a 2-D mask's true entries, as np.nonzero gives them, at about
    half its cost (numpy's 2-D nonzero is slower than a flat one and a divmod)."""
    return np.divmod(np.flatnonzero(mask), mask.shape[1])


def best_per_owner(owner: np.ndarray, score: np.ndarray, m: int, k: int) -> np.ndarray:
    """(m, k) indices into the flat (owner, score) entries: each owner's k highest scores,
    best first, ties in entry order. Every owner 0..m-1 must have at least k entries."""
    order = np.lexsort((-score, owner))
    counts = np.bincount(owner, minlength=m)
    return order[((np.cumsum(counts) - counts)[:, None] + np.arange(k)).ravel()].reshape(m, k)


def _group_bar(S: np.ndarray, k: int) -> np.ndarray:
    """Per row, the least of the maxima of k column groups: at most its k-th largest."""
    w = S.shape[1] - S.shape[1] % k
    return S[:, :w].reshape(S.shape[0], k, w // k).max(axis=2).min(axis=1)


def _tight_bar(S: np.ndarray, k: int) -> np.ndarray:
    """Per row, the k-th largest of the maxima of up to 8k column groups: still at most
    its k-th largest (k entries reach it), and near it. For a row that has nothing yet,
    the least of k group maxima let a hundred entries of a 1,024-wide tile through where
    a dozen can count, and merging them cost 15x the tile's product."""
    g = min(8 * k, S.shape[1] // 4)
    if g <= k:
        return _group_bar(S, k)
    w = S.shape[1] - S.shape[1] % g
    maxima = S[:, :w].reshape(S.shape[0], g, w // g).max(axis=2)
    return np.partition(maxima, g - k, axis=1)[:, g - k]


def top_of_blocks(
    blocks: Iterable[tuple[np.ndarray, np.ndarray]], m: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each of m rows' k highest values over column blocks `(S, ids)` (S is (m, len(ids));
    -inf never wins): (ids, values), not ordered, ties in block then column order.

    Only entries at or above a bar are merged. A row's bar is the larger of its k-th best
    so far and the smallest of the maxima of k column groups of the block: those k maxima
    reach it, so the row's k best of the block do too. Either bar lets through a few
    entries a row, so a block costs little beyond its product and two passes over it."""
    best_v = np.full((m, k), -np.inf, np.float32)
    best_i = np.zeros((m, k), np.int64)
    for S, ids in blocks:
        w = S.shape[1]
        bar = np.maximum(best_v.min(axis=1), _LOWEST)  # -inf never enters
        if w >= 4 * k:
            bar = np.maximum(bar, _group_bar(S, k))
        r, c = where2(S >= bar[:, None])
        if r.size == 0:
            continue
        vals = np.concatenate([best_v.ravel(), S[r, c]])
        idx = np.concatenate([best_i.ravel(), ids[c]])
        take = best_per_owner(np.concatenate([np.repeat(np.arange(m), k), r]), vals, m, k)
        best_v, best_i = vals[take], idx[take]
    return best_i, best_v


def nearest_centre(X: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Each row's nearest of the unit centres C (the largest dot product), a block of rows
    at a time (at most _ASSIGN_ENTRIES products held at once)."""
    step = max(1, _ASSIGN_ENTRIES // max(1, C.shape[0]))
    return np.concatenate(
        [np.argmax(X[i : i + step] @ C.T, axis=1) for i in range(0, X.shape[0], step)]
    ).astype(np.int64)


def unit_means(X: np.ndarray, lab: np.ndarray, c: int, old: np.ndarray) -> np.ndarray:
    """Unit mean of each label's rows (a label without rows keeps its old centre)."""
    order = np.argsort(lab, kind="stable")
    used, starts = np.unique(lab[order], return_index=True)
    out = old.astype(np.float64)
    if used.size:
        sums = np.add.reduceat(X[order].astype(np.float64), starts, axis=0)
        norm = np.linalg.norm(sums, axis=1, keepdims=True)
        ok = norm[:, 0] > 0
        out[used[ok]] = sums[ok] / norm[ok]
    return out.astype(np.float32)


def top_columns(closeness: np.ndarray, p: int) -> np.ndarray:
    """Each row's p highest columns, highest first (ties in column order): a row's nearest
    cells from its closeness to their centres.

    At a million facts there are about 20,000 cells: sorting them for 1,000 new rows took
    most of a second, and even a partition a third of one. Instead, the smallest of the
    maxima of p column blocks is at most a row's p-th largest value (p values reach it), so
    the entries at or above it hold the p highest; they are a few hundred a row. With few
    columns a block (the probed search's 250 cells, 8 at a time) that bar lets too many
    through, and a partition finds the p-th value itself."""
    m, c = closeness.shape
    if c >= 64 * p:  # blocks of 64 or more columns: their maxima leave few entries
        bar = _group_bar(closeness, p)
    else:
        bar = np.partition(closeness, c - p, axis=1)[:, c - p]
    r, cell = where2(closeness >= bar[:, None])
    return cell[best_per_owner(r, closeness[r, cell], m, p)]


def _pack(vals: np.ndarray, cand_ranks: np.ndarray) -> np.ndarray:
    bits = (vals.astype(np.float32) + np.float32(0.0)).view(np.int32)  # -0.0 -> +0.0
    ordered = np.where(bits >= 0, bits, bits ^ np.int32(0x7FFFFFFF)).astype(np.int64)
    return (ordered << 32) | (_LOW - cand_ranks)


def _unpack_cos(keys: np.ndarray) -> np.ndarray:
    ordered = (keys >> 32).astype(np.int32)
    return np.where(ordered >= 0, ordered, ordered ^ np.int32(0x7FFFFFFF)).view(np.float32)


def _unpack_rank(keys: np.ndarray) -> np.ndarray:
    return _LOW - (keys & _LOW)


def dots(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """float32 of the float64 sum of exact float64 products over the last axis (float32 x
    float32 is exact in float64), A and B broadcast: the cosine every final choice is made
    on, the same bits whatever the tiling that found the pair."""
    return np.multiply(A, B, dtype=np.float64).sum(axis=-1).astype(np.float32)


def polished(X: np.ndarray, rows: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """float32 cos(rows[a], cand[a, b]) computed independently of any tiling (`dots`)."""
    out = np.empty(cand.shape, dtype=np.float32)
    step = max(1, 512 // max(1, cand.shape[1]))  # 512 products of float64 stay in cache
    for c0 in range(0, rows.size, step):
        out[c0 : c0 + step] = dots(X[cand[c0 : c0 + step]], X[rows[c0 : c0 + step]][:, None, :])
    return out


class _TopK:
    """Running top-`width` per row, as packed keys, with the width-th cosine as a filter."""

    def __init__(self, n: int, width: int, ranks: np.ndarray) -> None:
        self.width = width
        self.ranks = ranks
        self.keys = np.full((n, width), _EMPTY, dtype=np.int64)
        self.floor = np.full(n, -np.inf, dtype=np.float32)
        self.thr = self.floor.copy()

    def _refresh(self, rows: np.ndarray) -> None:
        last = self.keys[rows, self.width - 1]
        self.thr[rows] = np.where(
            last == _EMPTY, self.floor[rows], np.maximum(self.floor[rows], _unpack_cos(last))
        )

    def offer(
        self,
        rows: np.ndarray,
        cols: np.ndarray,
        S: np.ndarray,
        col0: int | None = None,
        skip: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """Offer S[a, b] = cos(rows[a], cols[b]); `col0`: the columns are rows col0.. (self-pairs skipped).
        `skip` = (seen, group): S[a, b] is not offered where seen[a, group[b]] (that pair
        reaches the row another way); looked up for the few entries that pass the filter."""
        k = self.width
        if col0 is not None:  # self-pairs must not count towards a block's k-th value either
            own = rows - col0
            inside = np.flatnonzero((own >= 0) & (own < S.shape[1]))
            S[inside, own[inside]] = -np.inf
        t = self.thr[rows]
        if skip is None and S.shape[1] > 4 * k and np.isneginf(t).all():
            # rows with nothing yet (a probed search's own cells): every entry passes the
            # filter, so the bar alone picks, read off S itself
            sel, S2, t2 = np.arange(len(rows)), S, t
            mask = S >= _tight_bar(S, k)[:, None]
        else:
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
                    if skip is not None:  # the bar must stand on entries that may be offered
                        H[skip[0][sel[heavy]][:, skip[1]]] = -np.inf
                    mask[heavy] = H >= np.maximum(_group_bar(H, k), t2[heavy])[:, None]
        if col0 is not None:
            own = rows[sel] - col0
            inside = (own >= 0) & (own < S.shape[1])
            mask[np.flatnonzero(inside), own[inside]] = False
        r, c = where2(mask)
        if skip is not None:
            fresh = ~skip[0][sel[r], skip[1][c]]
            r, c = r[fresh], c[fresh]
        self.merge(rows[sel[r]], cols[c], S2[r, c])

    def merge(self, owners: np.ndarray, cands: np.ndarray, vals: np.ndarray) -> None:
        """Take cos(owners[e], cands[e]) = vals[e] into each owner's running top (each
        pair at most once a call)."""
        if owners.size == 0:
            return
        k = self.width
        keys = _pack(vals, self.ranks[cands])
        order = np.lexsort((-keys, owners))
        r, keys = owners[order], keys[order]
        starts = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
        sizes = np.diff(np.r_[starts, r.size])
        within = np.arange(r.size) - np.repeat(starts, sizes)
        keep = within < k
        group = np.repeat(np.arange(starts.size), sizes)[keep]
        grows = r[starts]
        M = np.full((starts.size, 2 * k), _EMPTY, dtype=np.int64)
        M[:, :k] = self.keys[grows]
        M[group, k + within[keep]] = keys[keep]
        M.sort(axis=1)
        self.keys[grows] = M[:, : k - 1 : -1]
        self._refresh(grows)


def _finalise(X: np.ndarray, ranks: np.ndarray, top: _TopK, rows: np.ndarray, k: int, out: Knn) -> None:
    """Choose each row's top-k by polished key into `out`; re-scan rows too close to call."""
    rank_to_row = np.argsort(ranks)
    keys = top.keys[rows]
    valid = keys != _EMPTY
    cand = np.where(valid, rank_to_row[np.where(valid, _unpack_rank(keys), 0)], 0)
    pol = polished(X, rows, cand)
    pkeys = np.where(valid, _pack(pol, ranks[cand]), _EMPTY)
    order = np.argsort(pkeys, axis=1)[:, ::-1][:, :k]
    out.nbrs[rows] = np.take_along_axis(cand, order, axis=1)
    out.cos[rows] = np.take_along_axis(pol, order, axis=1)
    if (np.take_along_axis(pkeys, order, axis=1) == _EMPTY).any():
        raise AssertionError("top-k left unfilled; k must be min(k, N-1)")
    eps = band(X.shape[1])
    edge = _unpack_cos(keys[:, -1])
    close = valid[:, -1] & (edge >= out.cos[rows, k - 1] - eps)
    for r0 in range(0, int(close.sum()), 64):
        chunk = rows[np.flatnonzero(close)[r0 : r0 + 64]]
        S = X[chunk] @ X.T
        for a, i in enumerate(chunk.tolist()):
            c = np.flatnonzero(S[a] >= out.cos[i, k - 1] - eps)
            c = c[c != i]
            p = polished(X, np.array([i]), c[None, :])[0]
            best = np.argsort(-_pack(p, ranks[c]))[:k]
            out.nbrs[i], out.cos[i] = c[best], p[best]


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
    label = nearest_centre(X, C)
    # the means in float32, not `unit_means`'s float64 copy of X (3 GB at a million x 384)
    order = np.argsort(label, kind="stable")
    used, starts = np.unique(label[order], return_index=True)
    C[used] = normalise(np.add.reduceat(X[order], starts, axis=0))
    return np.argsort(nearest_centre(X, C), kind="stable").astype(np.int64)


def _empty(n: int, k: int) -> Knn:
    return Knn(np.zeros((n, k), np.int64), np.zeros((n, k), np.float32))


def _offer_columns(top: _TopK, S: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> None:
    """Offer the tile S (rows x cols) to its columns, read in place: a column takes the
    entries at or above its running bar. Copying the tile's transpose to offer it
    row-wise, with the row-wise filter passes, cost twice its product on text without
    structure.

    Only while some column has no bar yet is it raised to the least of the maxima of k
    row groups of the tile (k entries of the tile reach that, so nothing below it can be
    among the column's k best). Every full row block's diagonal tile fills its rows'
    buffers before any other tile is offered; from then on the running bar alone lets
    through about as many entries (those it adds cannot stay: the k maxima outrank them),
    and taking the maxima was one more pass over every tile (benchmarks/RESULTS.md)."""
    k = top.width
    bar = top.thr[cols]
    h = S.shape[0] - S.shape[0] % k
    if h >= 4 * k and np.isneginf(bar).any():
        bar = np.maximum(bar, S[:h].reshape(k, h // k, S.shape[1]).max(axis=1).min(axis=0))
    r, c = where2(S >= bar)
    top.merge(cols[c], rows[r], S[r, c])


def _offer_rows(top: _TopK, S: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> None:
    """Offer the tile to its rows, as `_offer_columns` offers it to its columns (no
    self-pairs: the rows and columns are apart)."""
    k = top.width
    bar = top.thr[rows]
    if S.shape[1] >= 4 * k and np.isneginf(bar).any():
        bar = np.maximum(bar, _group_bar(S, k))
    r, c = where2(S >= bar[:, None])
    top.merge(rows[r], cols[c], S[r, c])


def exact_knn(X: np.ndarray, ranks: np.ndarray, k: int, progress: Progress | None = None) -> Knn:
    """Exact kNN of every row of the normalised float32 matrix X, k = min(k, N-1).

    Blockwise over the upper triangle: each tile X[I] @ X[J].T is computed once and
    offered to the rows of I and (transposed) to the rows of J, so memory stays at one
    ROW_BLOCK x COL_BLOCK tile and the flops are half a full X @ X.T. Diagonal tiles go
    first so every row has a threshold before the off-diagonal tiles are filtered.
    """
    n = X.shape[0]
    k = effective_k(k, n)
    if k == 0:
        return _empty(n, 0)
    perm = _locality_order(X)
    Xp = np.ascontiguousarray(X[perm], dtype=np.float32)
    rp = ranks[perm]
    top = _TopK(n, min(k + SLACK, n - 1), rp)
    idx = np.arange(n, dtype=np.int64)
    starts = range(0, n, ROW_BLOCK)
    total = len(starts) + sum(-(-(n - min(s + ROW_BLOCK, n)) // COL_BLOCK) for s in starts) + 1
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
            _offer_rows(top, S, rows, idx[j0:j1])
            done += 1
            if progress:
                progress(done, total)
    out = _empty(n, k)
    _finalise(Xp, rp, top, idx, k, out)
    if progress:
        progress(total, total)
    nbrs = np.empty_like(out.nbrs)
    cos = np.empty_like(out.cos)
    nbrs[perm] = perm[out.nbrs]
    cos[perm] = out.cos
    return Knn(nbrs, cos)


def extend_knn(
    X: np.ndarray, ranks: np.ndarray, old: Knn, n_old: int, k: int, progress: Progress | None = None
) -> tuple[Knn, np.ndarray]:
    """kNN of all rows after appending rows n_old.. to X, and which rows' lists changed.

    Exact because old-old cosines do not change: an old row's new list is the top-k of
    its old list plus the new rows, and the (cos, id) order is total and independent of
    how ranks are numbered, so re-keying the old lists with the new ranks keeps them
    exact. Only new-vs-all tiles are computed. An old row only needs new candidates
    within BAND of its old k-th cosine (the k-th can only rise). Requires the old lists
    to be full at the new effective k (the caller rebuilds when min(k, N-1) grew).
    """
    X = np.ascontiguousarray(X, dtype=np.float32)
    n = X.shape[0]
    k = effective_k(k, n)
    if old.nbrs.shape != (n_old, k):
        raise ValueError("old kNN lists do not match the new effective k; rebuild instead")
    if k == 0:
        return _empty(n, 0), np.ones(n, bool)
    top = _TopK(n, min(k + SLACK, n - 1), ranks)
    top.keys[:n_old, :k] = _pack(old.cos, ranks[old.nbrs])
    top.floor[:n_old] = old.cos[:, k - 1] - np.float32(band(X.shape[1]))
    top._refresh(np.arange(n_old))
    before = top.keys[:n_old].copy()
    idx = np.arange(n, dtype=np.int64)
    starts = range(n_old, n, ROW_BLOCK)
    total, done = len(starts) * -(-n // COL_BLOCK) + 1, 0
    for i0 in starts:
        i1 = min(i0 + ROW_BLOCK, n)
        rows = idx[i0:i1]
        for j0 in range(0, n, COL_BLOCK):
            j1 = min(j0 + COL_BLOCK, n)
            S = X[i0:i1] @ X[j0:j1].T
            if j0 < n_old:  # before the row offer, which writes -inf over self-pairs
                _offer_columns(top, S[:, : min(j1, n_old) - j0], rows, idx[j0 : min(j1, n_old)])
            top.offer(rows, idx[j0:j1], S, col0=j0)
            done += 1
            if progress:
                progress(done, total)
    touched = np.r_[np.flatnonzero((top.keys[:n_old] != before).any(axis=1)), idx[n_old:]]
    out = Knn(np.zeros((n, k), np.int64), np.zeros((n, k), np.float32))
    out.nbrs[:n_old], out.cos[:n_old] = old.nbrs, old.cos
    _finalise(X, ranks, top, touched, k, out)
    if progress:
        progress(total, total)
    changed = np.ones(n, dtype=bool)
    changed[:n_old] = (out.nbrs[:n_old] != old.nbrs).any(axis=1) | (out.cos[:n_old] != old.cos).any(axis=1)
    return out, changed
