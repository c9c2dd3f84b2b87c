"""Approximate kNN lists for large embedding spaces, with their measured recall (SPEC 3.1).

The exact search (`knn.exact_knn`) is quadratic. Above `graph.approximate_above` facts in
one space a search proposes each fact's candidates instead: NN-descent (pynndescent) for
model embeddings, the probed search (`plan_probes`, `probed_knn`: exact products over the
k-means cells each row reaches, numpy alone) for the built-in lexical vectors when their
neighbours sit in few cells, else faiss's HNSW. The candidates' cosines are recomputed
exactly and ordered by (cos, id), so the one error left is a true neighbour never
proposed; recall@10 against the exact top-10 of a seeded sample is measured on every
build and stored with the graph. Why these routes: docs/decisions/0005 and 0006; their
figures: benchmarks/RESULTS.md.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from synapse_tui.core.base.config import GraphConfig
from synapse_tui.core.base.errors import ConfigError
from synapse_tui.core.graph import cost
from synapse_tui.core.graph.knn import (
    _EMPTY,
    SLACK,
    Knn,
    Progress,
    _pack,
    _TopK,
    _unpack_rank,
    band,
    effective_k,
    exact_knn,
    nearest_centre,
    polished,
    top_of_blocks,
    unit_means,
    where2,
)

RECALL_AT = 10
TIE = 1e-6  # SPEC 3.1: a near-tie within this may fall either way
SEED = 13
ROUTES = ("cheapest", "approximate", "exact")  # graph.route
MISSING = (
    "built exact, which is slow at this size: the approximate graph needs the [scale] extra"
    " (pip install 'synapse-tui[scale]')"
)
OVER_BUDGET = "built exact: the approximate search would have taken longer than exact here"
# seconds NN-descent's numba code took to compile in a new process (27-40 s measured at a
# million facts): below this an exact search is cheaper than the compilation alone
NNDESCENT_COMPILE = 30.0
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
    "route",
)
_CHUNK = 16_384
# faiss HNSW over 8-bit codes for lexical vectors (M, efConstruction, first efSearch): the
# fastest of the settings tried at recall@10 >= 0.99, with the widest margin
LEXICAL_HNSW = (32, 40, 24)
CELLS_PER_ROOT = 0.8  # probed cells per sqrt(rows): more cells cost more k-means than they save
FIRST_REACH = 0.15  # the reach of a search without a tuning sample
ALL_CELLS = 2.0  # closeness to a unit centre lies in [-1, 1]: from this reach on, every cell
MISSES = 0.5  # the reach finds half the misses the target allows: two samples differ that much
KMEANS_SAMPLE = 40  # rows per cell
KMEANS_STEPS = 8
# The probed search costs about four times its products (offers to both ends, samples,
# plan): taken when they are at most this share of an exact search's, against faiss's HNSW
# (about half an exact search on text without structure) or, without faiss, against exact.
PROBED_WORK = 0.08
EXACT_WORK = 0.25
_ROWS = 2048  # rows of one product against a cell


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
    # each route's estimated seconds when the route was chosen by cost (not stored)
    priced: dict[str, float] = field(default_factory=dict, compare=False)

    @property
    def approximate(self) -> bool:
        return self.method != "exact"

    def meta(self) -> dict[str, Any]:
        return {"method": self.method, "recall": self.recall, "recall_sample": self.sample}


def _qt_8bit(faiss: Any) -> Any:
    """faiss's 8-bit scalar quantizer type (its stubs type it as an int the index's
    constructor does not accept, though the binding does)."""
    return faiss.ScalarQuantizer.QT_8bit


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
    """Exact lists up to the threshold; above it, the route that will cost least here and
    now (`graph.route` "cheapest"), or the approximate one whatever it costs
    ("approximate"), or exact ("exact").

    The candidates: for the built-in lexical vectors (`lexical`) the probed search
    (`probed_knn`, numpy alone), else faiss's HNSW, which measured faster than NN-descent
    there (NN-descent needed 30 neighbours for recall 0.99); for model embeddings
    NN-descent, else HNSW. "cheapest" prices exact from the recall samples' exact top-10,
    the probed search from its plan, and an index by a trial on a sample of the rows, and
    takes an approximate route only when it is priced under exact's; should it still run
    past exact's price, the lists are built exact. Threads are sized to the free CPUs."""
    n = X.shape[0]
    if n <= param(gc, "approximate_above") or effective_k(k, n) == 0:
        return Build(exact_knn(X, ranks, k, progress), "exact", None, 0)
    route = str(param(gc, "route"))
    if route not in ROUTES:
        raise ConfigError(f"graph.route: {route!r} is none of {', '.join(ROUTES)}")
    if route == "exact":
        return Build(exact_knn(X, ranks, k, progress), "exact", None, 0)
    has_faiss, has_nndescent = faiss_available(), nndescent_available()
    with cost.sized_threads(cost.free_cpus()):
        return _route(X, ranks, k, gc, progress, lexical, route == "cheapest", has_faiss, has_nndescent)


def _route(
    X: np.ndarray,
    ranks: np.ndarray,
    k: int,
    gc: Any,
    progress: Progress | None,
    lexical: bool,
    cheapest: bool,
    has_faiss: bool,
    has_nndescent: bool,
) -> Build:
    n = X.shape[0]
    size = int(param(gc, "recall_sample"))
    target = float(param(gc, "target_recall"))
    at = min(RECALL_AT, effective_k(k, n))
    t = time.perf_counter()
    if target > 0:  # the tuning sample's truth and the reported one's, in one pass
        tune, report = Truth.each(X, [sample_rows(n, size, SEED + 1), sample_rows(n, size)], at)
    else:
        tune, report = None, Truth.of(X, sample_rows(n, size), at)
    sampled = report.rows.size + (tune.rows.size if tune is not None else 0)
    unit = cost.per_product(time.perf_counter() - t, sampled, n)
    r = _Routing(X, ranks, k, progress, cheapest, tune, target, report, unit, cost.exact_seconds(unit, n))
    try:
        built = _lexical_route(r, has_faiss) if lexical else None
        if built is None:
            built = _nndescent_route(r, gc) if has_nndescent else None
        if built is None and not has_faiss:
            return r.exact(None if has_nndescent or (cheapest and lexical) else MISSING)
        return built or _hnsw_route(r, gc)
    except cost.OverBudget:
        return r.exact(OVER_BUDGET)


@dataclass
class _Routing:
    """What choosing a route needs: the vectors, the samples that measure recall, the
    price of the exact build, and the prices asked so far."""

    X: np.ndarray
    ranks: np.ndarray
    k: int
    progress: Progress | None
    cheapest: bool
    tune: Truth | None
    target: float
    report: Truth
    unit: float
    exact_s: float
    priced: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.priced["exact"] = self.exact_s

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    def exact(self, note: str | None) -> Build:
        return Build(
            exact_knn(self.X, self.ranks, self.k, self.progress), "exact", None, 0, note, self.priced
        )

    def affordable(self, name: str, seconds: float) -> bool:
        """Whether a route priced at `seconds` is taken: always when not asked for the
        cheapest, else when it is clearly cheaper than exact."""
        self.priced[name] = seconds
        return not self.cheapest or seconds < cost.MARGIN * self.exact_s

    def budget(self) -> cost.Budget:
        return cost.Budget(self.exact_s if self.cheapest else None)


def _lexical_route(r: _Routing, has_faiss: bool) -> Build | None:
    """The lexical space's routes: probed cells, or FAISS's HNSW over 8-bit vectors; None
    when neither applies (without FAISS, probing too much)."""
    X, k, n, cheapest = r.X, r.k, r.n, r.cheapest
    plan = plan_probes(X, effective_k(k, n), r.tune, r.target)
    probed_s = cost.probed_seconds(r.unit, n, plan.work)
    index_s = (
        cost.trial(lambda m: _hnsw_trial(X, k, m, r.target), n)
        if cheapest and has_faiss and probed_s > r.exact_s / 4
        else None
    )
    if (not cheapest and plan.work <= (PROBED_WORK if has_faiss else EXACT_WORK)) or (
        cheapest and r.affordable("probed", probed_s) and (index_s is None or probed_s <= index_s)
    ):
        knn, reach = probed_knn(X, r.ranks, k, plan, r.tune, r.target, r.progress, r.budget())
        return _measured(knn, f"probed(cells={plan.cells},reach={reach:.3g})", r.report, r.priced)
    if not has_faiss:
        return None
    if index_s is not None and not r.affordable("faiss-hnsw-sq8", index_s):
        return r.exact(None)
    m, ef_c, ef_s = LEXICAL_HNSW
    knn, ef = hnsw_knn(
        X, r.ranks, k, m, ef_c, ef_s, r.tune, r.target, r.progress, sq8=True, budget=r.budget()
    )
    return _measured(knn, f"faiss-hnsw-sq8(M={m},efConstruction={ef_c},efSearch={ef})", r.report, r.priced)


def _nndescent_route(r: _Routing, gc: Any) -> Build | None:
    """pynndescent's graph, when it is taken (compiling it first costs seconds, once a
    process: not when the cheapest route is asked of a small memory)."""
    X, n, cheapest = r.X, r.n, r.cheapest
    compiled = "pynndescent" in sys.modules
    if not (compiled or not cheapest or r.exact_s > NNDESCENT_COMPILE):
        return None
    nn = max(int(param(gc, "nndescent_neighbors")), effective_k(r.k, n) + 2)
    import pynndescent  # noqa: F401  (numba loads with it: its threads are sized below)

    with cost.sized_threads(cost.free_cpus()):
        if cheapest:
            _nndescent_trial(X, nn, 300)  # compiles: once a process, not a cost that scales
        if not cheapest or r.affordable("pynndescent", cost.trial(lambda m: _nndescent_trial(X, nn, m), n)):
            knn, nn = nndescent_knn(X, r.ranks, r.k, nn, r.tune, r.target, r.progress, r.budget())
            return _measured(knn, f"pynndescent(n_neighbors={nn})", r.report, r.priced)
    return None


def _hnsw_route(r: _Routing, gc: Any) -> Build:
    """FAISS's HNSW graph, or exact when that is cheaper."""
    X, k, n = r.X, r.k, r.n
    m, ef_c, ef_s = (int(param(gc, p)) for p in ("hnsw_m", "hnsw_ef_construction", "hnsw_ef_search"))
    if r.cheapest and not r.affordable(
        "faiss-hnsw", cost.trial(lambda q: _hnsw_trial(X, k, q, r.target, m, ef_c, ef_s), n)
    ):
        return r.exact(None)
    knn, ef = hnsw_knn(X, r.ranks, k, m, ef_c, ef_s, r.tune, r.target, r.progress, budget=r.budget())
    return _measured(knn, f"faiss-hnsw(M={m},efConstruction={ef_c},efSearch={ef})", r.report, r.priced)


def _hnsw_trial(
    X: np.ndarray, k: int, m: int, target: float, links: int = 0, ef_c: int = 0, ef_s: int = 0
) -> float:
    """Seconds faiss's HNSW takes to build over m rows and search them at the efSearch
    that reaches `target` recall@10 against their exact lists among themselves (the
    widening `hnsw_knn` would do; its earlier tries counted too). The lexical settings,
    over 8-bit codes, unless `links` is given."""
    import faiss

    sq8 = links == 0
    links, ef_c, ef_s = LEXICAL_HNSW if sq8 else (links, ef_c, ef_s)
    S = np.ascontiguousarray(X[sample_rows(X.shape[0], m, SEED + 5)], dtype=np.float32)
    t = time.perf_counter()
    index: Any  # the stubs type QT_8bit as an int the constructor does not take
    if sq8:
        index = faiss.IndexHNSWSQ(S.shape[1], _qt_8bit(faiss), links, faiss.METRIC_INNER_PRODUCT)
        index.train(S)
    else:
        index = faiss.IndexHNSWFlat(S.shape[1], links, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = ef_c
    index.add(S)
    took = time.perf_counter() - t
    at = min(RECALL_AT, m - 1)
    if at < 1:
        return took
    truth = _exact(S, np.arange(m), at)[0]
    ef = ef_s
    while True:
        index.hnsw.efSearch = max(ef, at + 5)
        t = time.perf_counter()
        found = index.search(S, at + 1)[1]
        took += time.perf_counter() - t
        hits = (found[:, :, None] == truth[:, None, :]).any(axis=1).sum() / truth.size
        if hits >= target or ef >= 16 * ef_s:
            return took
        ef *= 2


def _nndescent_trial(X: np.ndarray, neighbours: int, m: int) -> None:
    """NN-descent over m rows (its numba code compiled first, outside the time that
    scales: a build compiles once per process)."""
    import pynndescent

    S = np.ascontiguousarray(X[sample_rows(X.shape[0], m, SEED + 5)], dtype=np.float32)
    pynndescent.NNDescent(
        S, metric="dot", n_neighbors=min(m, neighbours), random_state=SEED, low_memory=True, compressed=False
    )


def _measured(knn: Knn, method: str, report: Truth, priced: dict[str, float]) -> Build:
    """An approximate build with its recall@10 on the seeded sample, and the prices its
    route was chosen by."""
    return Build(knn, method, report.recall(knn.nbrs, knn.cos), report.rows.size, None, priced)


def hnsw_knn(
    X: np.ndarray,
    ranks: np.ndarray,
    k: int,
    m: int,
    ef_c: int,
    ef_s: int,
    truth: Truth | None = None,
    target: float = 0.0,
    progress: Progress | None = None,
    sq8: bool = False,
    budget: cost.Budget | None = None,
) -> tuple[Knn, int]:
    """Each row's k best among the candidates faiss's HNSW proposes, by polished (cos, id),
    and the efSearch used: the first of ef_s, 2 ef_s, ... 16 ef_s whose lists reach
    `target` recall@10 on a tuning sample (not the sample the build reports on). The same
    settings give 0.996 at 100,000 clustered facts and 0.85 at a million, so a fixed
    efSearch cannot serve every size. `sq8`: the index holds 8-bit codes of the vectors
    (a quarter of the memory to walk); the candidates' cosines are exact all the same.
    `budget`: raises cost.OverBudget as soon as the searches timed on the tuning sample
    show the whole would run past it."""
    import faiss

    n, d = X.shape
    k = effective_k(k, n)
    width = min(n, k + 4)  # self, plus slack so near-ties are decided by polished keys
    X = np.ascontiguousarray(X, dtype=np.float32)
    index: Any
    if sq8:
        index = faiss.IndexHNSWSQ(d, _qt_8bit(faiss), m, faiss.METRIC_INNER_PRODUCT)
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
    if truth is not None:
        while True:
            index.hnsw.efSearch = max(ef, width)
            t = time.perf_counter()
            search(truth.rows)
            whole = (time.perf_counter() - t) * n / truth.rows.size
            if truth.recall(nbrs, cos) >= target or ef >= 16 * ef_s:
                break
            ef *= 2
            if budget:  # the next try and the search of every row, each at twice this one's
                budget.check(2 * whole * (1 + truth.rows.size / n))
        if budget:
            budget.check(whole)
    index.hnsw.efSearch = max(ef, width)
    done += 1
    for c0 in range(0, n, _CHUNK):
        search(np.arange(c0, min(c0 + _CHUNK, n), dtype=np.int64))
        done += 1
        if progress:
            progress(done, steps)
    return Knn(nbrs, cos), ef


@dataclass(frozen=True)
class Plan:
    """The cells of a probed search and how far a row reaches (`plan_probes`)."""

    centres: np.ndarray  # (cells, d) unit centres
    home: np.ndarray  # each row's nearest cell
    reach: float  # a row searches its own cell and every cell this close to its nearest's closeness
    work: float  # the products' share of an exact search's

    @property
    def cells(self) -> int:
        return self.centres.shape[0]


def plan_probes(X: np.ndarray, k: int, truth: Truth | None, target: float) -> Plan:
    """Cells by spherical k-means (about sqrt(n) of them), and how far a row must reach
    for `target` of the tuning sample's true pairs to be found (one end searching the
    other's cell), read off the sample before any search: where neighbours scatter over
    the cells (text without structure) the search would cost near an exact one, and the
    caller goes another way.

    A row reaches by closeness, not by a count of cells: it searches every cell whose
    centre is within `reach` of its nearest centre's closeness. A row deep inside its cell
    searches that cell alone, one between cells searches them all. On 100,000 facts
    phrased as the sample's (253 cells), the reach that finds 0.995 of the tuning pairs
    searched 3.6 cells a row on average (2 at the median), where a fixed count needed 5 for
    every row to find 0.99: two thirds of the products."""
    n = X.shape[0]
    X = np.ascontiguousarray(X, dtype=np.float32)
    cells = int(np.clip(round(np.sqrt(n) * CELLS_PER_ROOT), 1, max(1, n // (4 * (k + SLACK)))))
    centres = _kmeans(X, cells)
    home = nearest_centre(X, centres)
    reach = FIRST_REACH
    if truth is not None and target > 0:
        m, at = truth.ids.shape
        # a pair is found when either end searches the other's cell: the reach that takes
        # is the lesser of the row's to its neighbour's cell and the neighbour's to its
        there = _gaps(X[truth.rows], centres, home[truth.ids])
        back = _gaps(X[truth.ids.ravel()], centres, np.repeat(home[truth.rows], at)[:, None])
        needed = np.minimum(there.ravel(), back.ravel())
        needed[(home[truth.ids] == home[truth.rows][:, None]).ravel()] = 0.0  # one cell: its own
        needed.sort()
        share = 1 - (1 - target) * MISSES
        reach = float(needed[min(needed.size - 1, int(np.ceil(share * needed.size)) - 1)])
    rows = sample_rows(n, 1000, SEED + 4)
    searched = _within(X[rows] @ centres.T, reach)
    searched[np.arange(rows.size), home[rows]] = True
    work = float((searched * np.bincount(home, minlength=cells)).sum(axis=1).mean() / n)
    return Plan(centres, home, reach, work)


def _within(closeness: np.ndarray, reach: float) -> np.ndarray:
    """The cells each row reaches: those within `reach` of its highest closeness, the gap
    taken as `_gaps` takes it, so a cell the plan counted at the reach is searched."""
    if reach >= ALL_CELLS:
        return np.ones(closeness.shape, bool)
    return closeness.max(axis=1, keepdims=True) - closeness <= np.float32(reach)


def _gaps(Q: np.ndarray, centres: np.ndarray, cell: np.ndarray) -> np.ndarray:
    """How much less close each of `cell` (rows, t) is to its row than the row's nearest
    centre: the reach at which the row searches it."""
    C = Q @ centres.T
    return C.max(axis=1, keepdims=True) - np.take_along_axis(C, cell, axis=1)


def probed_knn(
    X: np.ndarray,
    ranks: np.ndarray,
    k: int,
    plan: Plan,
    truth: Truth | None = None,
    target: float = 0.0,
    progress: Progress | None = None,
    budget: cost.Budget | None = None,
) -> tuple[Knn, float]:
    """Each row's k best among the rows of the cells nearest it, searched exactly, and the
    reach searched with (numpy alone: no extra is needed).

    Every row is searched against its own cell, then against the other cells within its
    reach (`plan_probes`), a cell at a time: one matrix product of the cell's rows with
    the rows that search it. Each product serves both ends: a cell's row also takes the
    rows searching its cell as candidates, unless it searches their cell itself, which
    about halves the reach a row needs for the same recall (`plan_probes` counts a pair
    found from either end). Should the tuning sample still fall short of `target`
    recall@10, the search runs again with twice the reach (`budget`: unless that, at
    least twice the last search, would run past it: cost.OverBudget). Text clusters, so
    most of a row's neighbours sit in a few cells."""
    n = X.shape[0]
    k = effective_k(k, n)
    X = np.ascontiguousarray(X, dtype=np.float32)
    cells, reach = plan.cells, plan.reach
    order = np.argsort(plan.home, kind="stable")  # rows grouped by their own cell
    Xp, home = X[order], plan.home[order]  # from here on, rows are positions in this order
    starts = np.searchsorted(home, np.arange(cells + 1))
    pos = np.arange(n, dtype=np.int64)
    at = np.empty(n, np.int64)  # row -> position
    at[order] = pos
    steps, widened = 2 * cells, False
    while True:
        t = time.perf_counter()
        top = _TopK(n, min(n - 1, k + SLACK), ranks[order])
        for c in range(cells):  # each cell with itself (self-pairs skipped)
            b0, b1 = starts[c], starts[c + 1]
            for r0 in range(b0, b1, _ROWS):
                r1 = min(r0 + _ROWS, b1)
                top.offer(pos[r0:r1], pos[b0:b1], Xp[r0:r1] @ Xp[b0:b1].T, col0=b0)
            if progress and not widened:
                progress(c + 1, steps)
        _search_cells(Xp, home, _other_cells(Xp, plan, home, reach), starts, top)
        if progress:
            progress(steps - 1, steps)
        widened = True
        if truth is None or reach >= ALL_CELLS:
            break
        if truth.recall(*_chosen(X, ranks, order, top, at[truth.rows], k)) >= target:
            break
        if budget:
            budget.check(2 * (time.perf_counter() - t))
        reach = min(ALL_CELLS, max(2 * reach, 1 / 64))
    nbrs, cos = _chosen(X, ranks, order, top, pos, k)
    if progress:
        progress(steps, steps)
    return Knn(nbrs, cos), reach


def _kmeans(X: np.ndarray, cells: int) -> np.ndarray:
    """Unit centres of `cells` cells: spherical k-means on a seeded sample of the rows."""
    rng = np.random.default_rng(SEED + 3)
    S = X[np.sort(rng.choice(X.shape[0], size=min(X.shape[0], KMEANS_SAMPLE * cells), replace=False))]
    C = S[np.sort(rng.choice(S.shape[0], size=cells, replace=False))]
    for _ in range(KMEANS_STEPS):
        C = unit_means(S, nearest_centre(S, C), cells, C)
    return C


def _other_cells(X: np.ndarray, plan: Plan, home: np.ndarray, reach: float) -> np.ndarray:
    """(row, cell) of the cells each row reaches besides its own, by row (its own is left
    out by name: a product of another shape may round a near-tie the other way)."""
    pairs = []
    for i in range(0, X.shape[0], _CHUNK):
        reached = _within(X[i : i + _CHUNK] @ plan.centres.T, reach)
        reached[np.arange(reached.shape[0]), home[i : i + _CHUNK]] = False
        r, c = where2(reached)
        pairs.append(np.stack([r + i, c]))
    return np.concatenate(pairs, axis=1)


def _search_cells(
    Xp: np.ndarray, home: np.ndarray, reached: np.ndarray, starts: np.ndarray, top: _TopK
) -> None:
    """Offer every row the rows of the cells it reaches (`reached`: (row, cell) pairs by
    row), one product a cell with the rows that search it, and offer the cell's rows those
    searching rows back, save where the cell's row searches the searching row's cell itself
    (that pair comes from its own product: each pair is offered to each end once)."""
    who, cell = reached
    if who.size == 0:
        return
    by_row = np.searchsorted(who, np.arange(Xp.shape[0] + 1))
    by = np.argsort(cell, kind="stable")
    bounds = np.searchsorted(cell[by], np.arange(starts.size))
    for c in range(starts.size - 1):
        b0, b1 = starts[c], starts[c + 1]
        if b1 == b0:
            continue
        rows = who[by[bounds[c] : bounds[c + 1]]]
        cols = np.arange(b0, b1, dtype=np.int64)
        searches = np.zeros((b1 - b0, starts.size - 1), bool)  # the cells the cell's rows search
        mine = slice(by_row[b0], by_row[b1])
        searches[who[mine] - b0, cell[mine]] = True
        for q0 in range(0, rows.size, _ROWS):
            q = rows[q0 : q0 + _ROWS]
            S = Xp[q] @ Xp[b0:b1].T
            top.offer(q, cols, S)
            top.offer(cols, q, S.T, skip=(searches, home[q]))


def _chosen(
    X: np.ndarray, ranks: np.ndarray, order: np.ndarray, top: _TopK, at: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """(n, k) lists, filled at the rows at positions `at`: their candidates' best k by
    polished key."""
    nbrs = np.zeros((X.shape[0], k), np.int64)
    cos = np.zeros((X.shape[0], k), np.float32)
    rank_to_pos = np.argsort(top.ranks)
    for c0 in range(0, at.size, _CHUNK):
        a = at[c0 : c0 + _CHUNK]
        keys = top.keys[a]
        bad = keys == _EMPTY
        _best(X, ranks, order[a], order[rank_to_pos[np.where(bad, 0, _unpack_rank(keys))]], bad, k, nbrs, cos)
    return nbrs, cos


def nndescent_knn(
    X: np.ndarray,
    ranks: np.ndarray,
    k: int,
    neighbours: int,
    truth: Truth | None = None,
    target: float = 0.0,
    progress: Progress | None = None,
    budget: cost.Budget | None = None,
) -> tuple[Knn, int]:
    """Each row's k best among the `neighbours` that pynndescent's NN-descent finds for it,
    by polished (cos, id), and the list length used: when a tuning sample (not the one
    the build reports on) falls short of `target` recall@10, the search runs again with
    twice the lists, at most twice (`budget`: unless the next, about twice the last, would
    run past it: cost.OverBudget). Seeded: the same vectors give the same lists."""
    import pynndescent

    n = X.shape[0]
    k = effective_k(k, n)
    X = np.ascontiguousarray(X, dtype=np.float32)
    nbrs = np.empty((n, k), np.int64)
    cos = np.empty((n, k), np.float32)
    for attempt in range(3):
        if progress:
            progress(attempt, 3)
        t = time.perf_counter()
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
        if truth is None or truth.recall(nbrs, cos) >= target or attempt == 2 or width >= n:
            break
        if budget:
            budget.check(2 * (time.perf_counter() - t))
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
    """The exact top-k rows of each of `rows` (by float32 cosine), unordered."""
    return _exact(X, rows, k)[0]


def _exact(X: np.ndarray, rows: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each of `rows`' exact top-k rows and their float32 cosines, one column block at a
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

    return top_of_blocks(blocks(), rows.size, k)


@dataclass(frozen=True)
class Truth:
    """The exact top-10 of sampled rows, that lists are measured against."""

    rows: np.ndarray
    ids: np.ndarray  # (rows, at), unordered
    kth: np.ndarray  # each row's at-th cosine
    tol: float

    @classmethod
    def of(cls, X: np.ndarray, rows: np.ndarray, at: int) -> Truth:
        return cls.each(X, [rows], at)[0]

    @classmethod
    def each(cls, X: np.ndarray, samples: list[np.ndarray], at: int) -> list[Truth]:
        """The truths of several samples, X read once for all."""
        ids, vals = _exact(X, np.concatenate(samples), at)
        ends = np.cumsum([rows.size for rows in samples])
        return [
            cls(
                rows,
                ids[end - rows.size : end],
                vals[end - rows.size : end].min(axis=1),
                TIE + band(X.shape[1]),
            )
            for rows, end in zip(samples, ends.tolist(), strict=True)
        ]

    def recall(self, nbrs: np.ndarray, cos: np.ndarray) -> float:
        """Share of the sampled rows' top-`at` slots that hold a true neighbour: one of the
        exact top-`at`, or a row tied with the at-th within TIE (the SPEC lets a near-tie
        fall either way; without this, two lists equally right would score differently)."""
        at = self.ids.shape[1]
        if at == 0 or self.rows.size == 0:
            return 1.0
        found, fcos = nbrs[self.rows, :at], cos[self.rows, :at]
        listed = (found[:, :, None] == self.ids[:, None, :]).any(axis=2)
        return float(np.mean(listed | (fcos >= self.kth[:, None] - self.tol)))


def recall(X: np.ndarray, knn: Knn, rows: np.ndarray) -> float:
    """Mean share of each sampled row's exact top-10 found in its top-10 list (near-ties
    count either way)."""
    return Truth.of(X, rows, min(RECALL_AT, knn.nbrs.shape[1])).recall(knn.nbrs, knn.cos)
