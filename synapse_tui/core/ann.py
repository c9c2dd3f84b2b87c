"""Approximate kNN lists for large embedding spaces, with their measured recall (SPEC 3.1).

The exact search (`knn.exact_knn`) is quadratic: about an hour for a million 384-d facts
on two cores. Above `graph.approximate_above` facts in one space (default 50,000, the
SPEC's floor) and when the `[scale]` extra is installed, NN-descent (pynndescent) proposes
each fact's candidates instead, or faiss's HNSW index where only faiss is installed. Their
cosines are then recomputed exactly (the same polished float32 values as the exact path)
and ordered by (cos, id), so the one kind of error left is a true neighbour the search
never proposed. How often that happens is measured on every build: recall@10 of the lists
against the exact top-10 of `graph.recall_sample` facts chosen at random (seeded, so a
rebuild of the same data samples the same facts), and stored with the graph for `show`,
`edges` and the browser to report.

Chosen by measurement on this machine kind (a shared and busy two-core machine, so wall
times are inflated; benchmarks/bench_ann.py, bench_million.py). At 1,000,000 x 384
clustered: pynndescent (15 neighbours) 125 s at recall@10 0.997, plus 27-40 s compiling
its numba code once per process; faiss HNSW M=16 3,118 s at 0.976 (efSearch widened);
hnswlib (issue 13) 473 s at 0.874. At 100,000 x 384: exact 52.9 s; faiss HNSW M=16 27.9 s
at 0.998; faiss IVF 20.5 s at 1.0 on clustered vectors but 0.87 on the lexical ones;
usearch 154 s. HNSW's build grows faster than NN-descent's with N, which is why it lost at
a million; it stays the route where pynndescent (numba) is not installed, and goes first
for the lexical vectors, where it measured faster than NN-descent (which needed 30
neighbours there to reach recall 0.99).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from synapse_tui.core.config import GraphConfig
from synapse_tui.core.knn import (
    _EMPTY,
    Knn,
    Progress,
    _pack,
    effective_k,
    exact_knn,
    polished,
    top_of_blocks,
)

RECALL_AT = 10
SEED = 13
MISSING = (
    "built exact, which is slow at this size: the approximate graph needs the [scale] extra"
    " (pip install 'synapse-tui[scale]')"
)
NEIGHBOURS = 15  # NN-descent's list length per fact (self included): k + 4 candidates to re-rank
DEFAULTS = GraphConfig()
SETTINGS = (
    "approximate_above",
    "recall_sample",
    "target_recall",
    "hnsw_m",
    "hnsw_ef_construction",
    "hnsw_ef_search",
    "nndescent_neighbors",
)
_CHUNK = 16_384
# faiss HNSW for the built-in lexical vectors (M, efConstruction, first efSearch), over
# 8-bit codes. Measured on 100,000 synthetic facts' n-gram vectors (d = 256), each at
# recall@10 >= 0.99 on 1,000 facts, index build + search of every fact: flat M=16,
# efConstruction=64 (the model spaces' defaults) 19.5 s; 8-bit M=32, 40, efSearch 24
# 11.7 s; 8-bit M=24, 32, efSearch 48 10.7 s; 8-bit M=48, 24, efSearch 48 10.3 s.
# 32/40/24 is kept for its margin (0.993 where the others sit at 0.991-0.992).
LEXICAL_HNSW = (32, 40, 24)


def param(gc: Any, name: str) -> Any:
    """A graph setting, with the default for configs that predate it."""
    return getattr(gc, name, getattr(DEFAULTS, name))


@dataclass(frozen=True)
class Build:
    """One space's kNN lists and how they were made."""

    knn: Knn
    method: str  # 'exact', or the index and its parameters
    recall: float | None  # recall@10 against exact on `sample` facts; None when exact
    sample: int
    note: str | None = None  # why the lists are exact although the space is large

    @property
    def approximate(self) -> bool:
        return self.method != "exact"

    def meta(self) -> dict[str, Any]:
        return {"method": self.method, "recall": self.recall, "recall_sample": self.sample}


def faiss_available() -> bool:
    try:
        import faiss  # noqa: F401
    except ImportError:
        return False
    return True


def nndescent_available() -> bool:
    """Without importing it: pynndescent's import (numba, scikit-learn) takes seconds, and
    the lexical space asks without using it."""
    return importlib.util.find_spec("pynndescent") is not None


def build_knn(
    X: np.ndarray, ranks: np.ndarray, k: int, gc: Any, progress: Progress | None = None, lexical: bool = False
) -> Build:
    """Exact lists up to the threshold (or without the extra), approximate ones above it.

    `lexical`: the built-in hashed n-gram vectors, where faiss's HNSW measured faster than
    NN-descent (100,000 facts: 0.67 against 1.00 of one exact X @ X.T pass, NN-descent
    needing 30 neighbours for recall 0.99), so HNSW goes first there."""
    n = X.shape[0]
    if n <= param(gc, "approximate_above") or effective_k(k, n) == 0:
        return Build(exact_knn(X, ranks, k, progress), "exact", None, 0)
    size = int(param(gc, "recall_sample"))
    if nndescent_available() and not (lexical and faiss_available()):
        nn = max(int(param(gc, "nndescent_neighbors")), effective_k(k, n) + 2)
        knn, nn = nndescent_knn(X, ranks, k, nn, float(param(gc, "target_recall")), size, progress)
        return _measured(X, knn, f"pynndescent(n_neighbors={nn})", size)
    if not faiss_available():
        return Build(exact_knn(X, ranks, k, progress), "exact", None, 0, MISSING)
    target = float(param(gc, "target_recall"))
    if lexical:
        m, ef_c, ef_s = LEXICAL_HNSW
        knn, ef = hnsw_knn(X, ranks, k, m, ef_c, ef_s, target, size, progress, sq8=True)
        return _measured(X, knn, f"faiss-hnsw-sq8(M={m},efConstruction={ef_c},efSearch={ef})", size)
    m, ef_c, ef_s = (int(param(gc, p)) for p in ("hnsw_m", "hnsw_ef_construction", "hnsw_ef_search"))
    knn, ef = hnsw_knn(X, ranks, k, m, ef_c, ef_s, target, size, progress)
    return _measured(X, knn, f"faiss-hnsw(M={m},efConstruction={ef_c},efSearch={ef})", size)


def _measured(X: np.ndarray, knn: Knn, method: str, size: int) -> Build:
    """An approximate build with its recall@10 on the seeded sample."""
    sample = sample_rows(X.shape[0], size)
    at = min(RECALL_AT, knn.nbrs.shape[1])
    return Build(knn, method, _hits(knn.nbrs[sample], exact_top(X, sample, at)), sample.size)


def hnsw_knn(
    X: np.ndarray,
    ranks: np.ndarray,
    k: int,
    m: int,
    ef_c: int,
    ef_s: int,
    target: float = 0.0,
    tune_size: int = 1000,
    progress: Progress | None = None,
    sq8: bool = False,
) -> tuple[Knn, int]:
    """Each row's k best among the candidates faiss's HNSW proposes, by polished (cos, id),
    and the efSearch used: the first of ef_s, 2 ef_s, ... 16 ef_s whose lists reach
    `target` recall@10 on a tuning sample (not the sample the build reports on). The same
    settings give 0.996 at 100,000 clustered facts and 0.85 at a million, so a fixed
    efSearch cannot serve every size. `sq8`: the index holds 8-bit codes of the vectors
    (a quarter of the memory to walk); the candidates' cosines are exact all the same."""
    import faiss

    n, d = X.shape
    k = effective_k(k, n)
    width = min(n, k + 4)  # self, plus slack so near-ties are decided by polished keys
    X = np.ascontiguousarray(X, dtype=np.float32)
    if sq8:
        index = faiss.IndexHNSWSQ(d, faiss.ScalarQuantizer.QT_8bit, m, faiss.METRIC_INNER_PRODUCT)
        index.train(X[sample_rows(n, 20_000, SEED + 2)])
    else:
        index = faiss.IndexHNSWFlat(d, m, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = ef_c
    steps = 2 * -(-n // _CHUNK) + 1
    done = 0
    for c0 in range(0, n, _CHUNK):
        index.add(X[c0 : c0 + _CHUNK])
        done += 1
        if progress:
            progress(done, steps)
    nbrs = np.empty((n, k), np.int64)
    cos = np.empty((n, k), np.float32)

    def search(rows: np.ndarray) -> None:
        cand = index.search(X[rows], width)[1].astype(np.int64)
        _best(X, ranks, rows, cand, (cand < 0) | (cand == rows[:, None]), k, nbrs, cos)

    ef = ef_s
    if target > 0:
        tune = sample_rows(n, tune_size, SEED + 1)
        truth = exact_top(X, tune, min(RECALL_AT, k))
        while True:
            index.hnsw.efSearch = max(ef, width)
            search(tune)
            if _hits(nbrs[tune], truth) >= target or ef >= 16 * ef_s:
                break
            ef *= 2
    index.hnsw.efSearch = max(ef, width)
    done += 1
    for c0 in range(0, n, _CHUNK):
        search(np.arange(c0, min(c0 + _CHUNK, n), dtype=np.int64))
        done += 1
        if progress:
            progress(done, steps)
    return Knn(nbrs, cos), ef


def nndescent_knn(
    X: np.ndarray,
    ranks: np.ndarray,
    k: int,
    neighbours: int,
    target: float = 0.0,
    tune_size: int = 1000,
    progress: Progress | None = None,
) -> tuple[Knn, int]:
    """Each row's k best among the `neighbours` that pynndescent's NN-descent finds for it,
    by polished (cos, id), and the list length used: when a tuning sample (not the one
    the build reports on) falls short of `target` recall@10, the search runs again with
    twice the lists, at most twice. Seeded: the same vectors give the same lists."""
    import pynndescent

    n = X.shape[0]
    k = effective_k(k, n)
    X = np.ascontiguousarray(X, dtype=np.float32)
    tune = sample_rows(n, tune_size, SEED + 1) if target > 0 else None
    truth = exact_top(X, tune, min(RECALL_AT, k)) if tune is not None else None
    nbrs = np.empty((n, k), np.int64)
    cos = np.empty((n, k), np.float32)
    for attempt in range(3):
        if progress:
            progress(attempt, 3)
        width = min(n, neighbours)
        index = pynndescent.NNDescent(
            X, metric="dot", n_neighbors=width, random_state=SEED, low_memory=True, compressed=False
        )
        cand = index.neighbor_graph[0].astype(np.int64)
        del index
        for c0 in range(0, n, _CHUNK):
            rows = np.arange(c0, min(c0 + _CHUNK, n), dtype=np.int64)
            c = cand[rows]
            _best(X, ranks, rows, c, (c < 0) | (c == rows[:, None]), k, nbrs, cos)
        if truth is None or _hits(nbrs[tune], truth) >= target or attempt == 2 or width >= n:
            break
        neighbours *= 2
    if progress:
        progress(3, 3)
    return Knn(nbrs, cos), width


def _best(
    X: np.ndarray,
    ranks: np.ndarray,
    rows: np.ndarray,
    cand: np.ndarray,
    bad: np.ndarray,
    k: int,
    nbrs: np.ndarray,
    cos: np.ndarray,
) -> None:
    """Rows' top-k of their candidates by polished key; a row the index left short of k
    candidates (a disconnected part of the graph) is searched exactly instead."""
    cand = np.where(bad, 0, cand)
    pol = polished(X, rows, cand)
    keys = np.where(bad, _EMPTY, _pack(pol, ranks[cand]))
    order = np.argsort(keys, axis=1)[:, ::-1][:, :k]
    nbrs[rows] = np.take_along_axis(cand, order, axis=1)
    cos[rows] = np.take_along_axis(pol, order, axis=1)
    short = np.flatnonzero((np.take_along_axis(keys, order, axis=1) == _EMPTY).any(axis=1))
    if short.size:
        r = rows[short]
        top = exact_top(X, r, min(k + 4, X.shape[0] - 1))
        _best(X, ranks, r, top, np.zeros(top.shape, bool), k, nbrs, cos)


def sample_rows(n: int, size: int, seed: int = SEED) -> np.ndarray:
    """The facts a build checks its recall on: seeded, so a rebuild checks the same ones."""
    return np.sort(np.random.default_rng(seed).choice(n, size=min(n, max(1, size)), replace=False))


def exact_top(X: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    """The exact top-k rows of each of `rows` (by float32 cosine), one column block at a
    time: X is read once, however many rows ask."""
    n = X.shape[0]
    Q = np.ascontiguousarray(X[rows], dtype=np.float32)
    step = max(k + 1, (1 << 24) // max(1, rows.size))

    def blocks() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for c0 in range(0, n, step):
            c1 = min(c0 + step, n)
            S = Q @ X[c0:c1].T
            own = np.flatnonzero((rows >= c0) & (rows < c1))
            S[own, rows[own] - c0] = -np.inf
            yield S, np.arange(c0, c1)

    return top_of_blocks(blocks(), rows.size, k)[0]


def recall(X: np.ndarray, knn: Knn, rows: np.ndarray) -> float:
    """Mean share of each sampled row's exact top-10 found in its top-10 list."""
    at = min(RECALL_AT, knn.nbrs.shape[1])
    if at == 0 or rows.size == 0:
        return 1.0
    return _hits(knn.nbrs[rows], exact_top(X, rows, at))


def _hits(found: np.ndarray, truth: np.ndarray) -> float:
    at = truth.shape[1]
    hits = (found[:, :at, None] == truth[:, None, :]).any(axis=2).sum()
    return float(hits) / float(truth.size)
