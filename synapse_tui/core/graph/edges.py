"""The neighbour graph's arithmetic (SPEC section 3): mutual-kNN edges and clamped NPMI.

Pure numpy over arrays; the exact kNN search lives in `knn`, the store-facing code in
`graph.build`. Weights are float64 computed from the float32 (polished) cosines.
"""

from __future__ import annotations

import numpy as np

from synapse_tui.core.graph.knn import (  # noqa: F401  (re-exported: the graph's one import)
    Knn,
    Progress,
    effective_k,
    exact_knn,
    extend_knn,
    normalise,
    string_ranks,
)

# float32 cosines of exact duplicates land within a few ulps of 1; a mean that close to 1
# is the SPEC's "mu >= 1" case, not a 0/0 to be decided by rounding noise.
MU_ONE_TOL = 1e-6


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


def directed_weights(cos: np.ndarray) -> np.ndarray:
    """`w_i(j)` for each entry of each row's kNN cosines (float64, same shape).

    Row-local: a row's weights depend on its own cosines only, so computing them for a
    subset of rows gives the same bits as for all rows (the incremental update relies on it).
    """
    cos = np.clip(np.asarray(cos, dtype=np.float64), -1.0, 1.0)
    mu = cos.mean(axis=1)
    dup = mu >= 1.0 - MU_ONE_TOL
    denom = np.where(dup, 1.0, 1.0 - mu)
    return np.where(dup[:, None], 1.0, np.clip((cos - mu[:, None]) / denom[:, None], 0.0, 1.0))


_EDGE_ROWS = 16_384


def mutual_edges(knn: Knn, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mutual-kNN edges (a < b as rows) with local-baseline weights > 0 (SPEC 3.1).

    With `rows`, only the edges with at least one end in `rows` (what an incremental
    update rewrites), at a cost proportional to len(rows) * k**2 instead of N * k.
    """
    nbrs = knn.nbrs
    n, k = nbrs.shape
    if n == 0 or k == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64)
    if rows is not None:
        return _mutual_edges_of(knn, np.asarray(rows, dtype=np.int64))
    w = directed_weights(knn.cos)
    parts = []
    for r0 in range(0, n, _EDGE_ROWS):  # a block of rows: its lists' lists held at once
        i = np.arange(r0, min(r0 + _EDGE_ROWS, n), dtype=np.int64)
        j = nbrs[i].astype(np.int64)
        back = nbrs[j] == i[:, None, None]  # where i sits in j's list, if it does
        mutual = back.any(axis=2) & (i[:, None] < j)
        # (w_i(j) + w_j(i)) / 2 with i < j, pairs in row then list order
        weight = (w[i][mutual] + w[j[mutual], back[mutual].argmax(axis=1)]) / 2.0
        a, b = np.broadcast_to(i[:, None], j.shape)[mutual], j[mutual]
        keep = weight > 0.0
        parts.append((a[keep], b[keep], weight[keep]))
    a, b, w = (np.concatenate(p) for p in zip(*parts, strict=True))
    return a, b, w


def _mutual_edges_of(knn: Knn, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, k = knn.nbrs.shape
    i = np.repeat(rows, k)
    j = knn.nbrs[rows].ravel().astype(np.int64)
    back = knn.nbrs[j] == i[:, None]  # where i sits in j's list, if it does
    listed = np.zeros(n, dtype=bool)
    listed[rows] = True
    keep = back.any(axis=1) & ((i < j) | ~listed[j])  # a pair inside `rows` once
    w_i = directed_weights(knn.cos[rows]).ravel()[keep]
    i, j, back = i[keep], j[keep], back[keep]
    w_j = np.take_along_axis(directed_weights(knn.cos[j]), back.argmax(axis=1)[:, None], axis=1)[:, 0]
    first = i < j
    # (w_a(b) + w_b(a)) / 2 with a < b, added in the same order as the full pass
    weight = np.where(first, w_i + w_j, w_j + w_i) / 2.0
    a, b = np.where(first, i, j), np.where(first, j, i)
    keep = weight > 0.0
    order = np.lexsort((b[keep], a[keep]))
    return a[keep][order], b[keep][order], weight[keep][order]


def npmi_edges(
    unit: np.ndarray, entity: np.ndarray, n_entities: int, min_count: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Clamped NPMI over (unit, entity) incidences (SPEC 3.2): a < b, weight > 0, n_ab.

    Duplicate incidences are ignored. N counts units with at least one entity.
    """
    empty = (np.zeros(0, np.int64),) * 2 + (np.zeros(0, np.float64), np.zeros(0, np.int64))
    if len(entity) == 0:
        return empty
    # each (unit, entity) once, in (unit, entity) order: one integer key sorts as the pair does
    inc = np.unique(np.asarray(unit, np.int64) * n_entities + np.asarray(entity, np.int64))
    u, e = inc // n_entities, inc % n_entities
    n_units = np.unique(u).size
    n_x = np.bincount(e, minlength=n_entities)
    # n_ab <= min(n_a, n_b): an entity in fewer units than min_count is in no edge, so it is
    # never paired (a note naming thousands of entities found nowhere else costs no pairs)
    seen = n_x[e] >= max(1, int(min_count))
    u, e = u[seen], e[seen]
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


def pagerank(
    n: int, a: np.ndarray, b: np.ndarray, w: np.ndarray, alpha: float = 0.85, tol: float = 1e-6
) -> np.ndarray:
    """PageRank over an undirected weighted graph of n nodes, as networkx computes it.

    The same power iteration as `networkx.pagerank` (uniform teleport, dangling mass spread
    uniformly, stop when the L1 change < n * tol, at most 100 steps), in numpy: networkx's
    version needs scipy, which is not a dependency. Returns the last iterate rather than
    raising when it has not converged.
    """
    if n == 0:
        return np.zeros(0, np.float64)
    src = np.concatenate([a, b]).astype(np.int64)
    dst = np.concatenate([b, a]).astype(np.int64)
    wt = np.concatenate([w, w]).astype(np.float64)
    out = np.bincount(src, weights=wt, minlength=n)
    dangling = out == 0
    inv = np.divide(1.0, out, out=np.zeros(n), where=~dangling)
    x = np.full(n, 1.0 / n)
    for _ in range(100):
        last = x
        x = alpha * (np.bincount(dst, weights=x[src] * inv[src] * wt, minlength=n) + last[dangling].sum() / n)
        x += (1.0 - alpha) / n
        if np.abs(x - last).sum() < n * tol:
            break
    return x
