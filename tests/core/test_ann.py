"""The approximate graph above its threshold: recall and edge agreement against exact,
the recall stored and reported, incremental updates exact for new facts, and the exact
fallback (with a clear note) when the `[scale]` extra is not installed."""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

from synapse_tui.cli import main
from synapse_tui.core.base.config import Config
from synapse_tui.core.graph import ann
from synapse_tui.core.graph import edges as g
from synapse_tui.core.graph.build import ensure_graph
from synapse_tui.core.graph.read import graph_info
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from tests.core.graph_stores import N, build_store, clustered, facts_with_embeddings
from tests.helpers import write_jsonl


@pytest.fixture
def one_thread():
    """faiss inserts into HNSW from several threads, in an order that varies, and
    NN-descent's numba threads update its lists in an order that varies too (the builds
    size them to the CPUs the load leaves free, which change between two builds on a busy
    machine); one thread makes the index, and so the measured figures, the same on every
    run."""
    faiss = pytest.importorskip("faiss")
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        import numba
    except ImportError:
        numba = None
    was = numba.get_num_threads() if numba is not None else None
    if numba is not None:
        numba.set_num_threads(1)
    yield
    faiss.omp_set_num_threads(before)
    if numba is not None:
        numba.set_num_threads(was)


@pytest.fixture
def hnsw(one_thread, monkeypatch):
    """faiss's HNSW: what an install with faiss but without pynndescent builds with."""
    monkeypatch.setitem(sys.modules, "pynndescent", None)
    assert not ann.nndescent_available()


@pytest.fixture
def nndescent():
    pytest.importorskip("pynndescent")


def low_threshold(**extra: object) -> Config:
    """Approximate from 1,000 facts, whatever it costs: at these sizes exact is cheaper
    than any index, and "cheapest" would build exact."""
    return Config().with_values("graph", approximate_above=1000, **({"route": "approximate"} | extra))


def edge_set(knn: g.Knn) -> set[tuple[int, int]]:
    a, b, _ = g.mutual_edges(knn)
    return set(zip(a.tolist(), b.tolist(), strict=True))


# pynndescent's numba compiles in each new process: two minutes of the suite on two cores
@pytest.mark.parametrize("library", [pytest.param("pynndescent", marks=pytest.mark.slow), "faiss-hnsw"])
def test_approximate_lists_and_edges_agree_with_exact(library, one_thread, monkeypatch):
    if library == "pynndescent":
        pytest.importorskip("pynndescent")
    else:
        monkeypatch.setitem(sys.modules, "pynndescent", None)
    X = clustered(N, seed=1, noise=1.5)  # noisy enough that the index misses a few
    ranks = g.string_ranks([f"f{i:05d}" for i in range(N)])
    exact = g.exact_knn(X, ranks, 10)
    built = ann.build_knn(X, ranks, 10, low_threshold().graph)
    assert built.approximate and built.method.startswith(library)
    assert built.sample == 1000 and 0.99 <= built.recall < 1.0
    assert built.recall == direct_recall(built.knn, exact)
    ours, truth = edge_set(built.knn), edge_set(exact)
    assert len(ours & truth) / len(truth) >= 0.98 and len(ours & truth) / len(ours) >= 0.98
    # cosines are the exact path's polished values, so shared lists carry identical weights
    same = (built.knn.nbrs == exact.nbrs).all(axis=1)
    assert same.mean() > 0.9 and np.array_equal(built.knn.cos[same], exact.cos[same])
    again = ann.build_knn(X, ranks, 10, low_threshold().graph)
    assert again.recall == built.recall and np.array_equal(again.knn.nbrs, built.knn.nbrs)


def test_the_lexical_space_searches_8_bit_codes_and_keeps_exact_cosines(one_thread):
    """The built-in n-gram vectors go to faiss's HNSW over 8-bit codes (measured fastest
    there); the codes only propose candidates: the lists' cosines and edges are exact."""
    pytest.importorskip("faiss")
    from synapse_tui.core.graph.lexical import embed_texts

    rng = np.random.default_rng(3)
    words = "payments api auth billing deploy schema owner team cache queue worker token".split()
    X = embed_texts([f"fact {i}: " + " ".join(rng.choice(words, 6)) for i in range(N)])
    ranks = g.string_ranks([f"f{i:05d}" for i in range(N)])
    exact = g.exact_knn(X, ranks, 10)
    built = ann.build_knn(X, ranks, 10, low_threshold().graph, lexical=True)
    assert built.method.startswith("faiss-hnsw-sq8(M=32,") and built.recall >= 0.99
    assert built.recall == direct_recall(built.knn, exact)
    ours, truth = edge_set(built.knn), edge_set(exact)
    assert len(ours & truth) / len(truth) >= 0.98 and len(ours & truth) / len(ours) >= 0.98
    same = (built.knn.nbrs == exact.nbrs).all(axis=1)
    assert np.array_equal(built.knn.cos[same], exact.cos[same])


def direct_recall(knn: g.Knn, exact: g.Knn) -> float:
    rows = ann.sample_rows(knn.nbrs.shape[0], 1000)
    return sum(np.intersect1d(knn.nbrs[i], exact.nbrs[i]).size for i in rows) / (10 * rows.size)


def test_a_weak_index_reports_its_weak_recall(hnsw):
    """The stored figure is a measurement, not a promise: starve the index and it drops."""
    X = clustered(N, seed=1, noise=1.5)
    ranks = g.string_ranks([f"f{i:05d}" for i in range(N)])
    weak = low_threshold(hnsw_m=4, hnsw_ef_construction=8, hnsw_ef_search=1, target_recall=0).graph
    built = ann.build_knn(X, ranks, 10, weak)
    assert built.method == "faiss-hnsw(M=4,efConstruction=8,efSearch=1)"
    assert built.recall < 0.9 and built.recall == direct_recall(built.knn, g.exact_knn(X, ranks, 10))


def test_the_search_widens_until_the_target_recall(hnsw):
    X = clustered(N, seed=1, noise=1.5)
    ranks = g.string_ranks([f"f{i:05d}" for i in range(N)])
    narrow = ann.build_knn(X, ranks, 10, low_threshold(hnsw_ef_search=2, target_recall=0).graph)
    tuned = ann.build_knn(X, ranks, 10, low_threshold(hnsw_ef_search=2).graph)
    assert narrow.method.endswith("efSearch=2)") and narrow.recall < 0.99
    ef = int(tuned.method.split("efSearch=")[1].rstrip(")"))
    assert ef in (4, 8, 16, 32) and tuned.recall >= 0.99


@pytest.mark.slow  # 42 s of tests/core's 109 s without it (numba compiles pynndescent)
def test_short_nn_descent_lists_report_their_recall_and_then_widen(nndescent):
    X = clustered(N, seed=1, noise=1.5)
    ranks = g.string_ranks([f"f{i:05d}" for i in range(N)])
    exact = g.exact_knn(X, ranks, 10)
    short = ann.build_knn(X, ranks, 10, low_threshold(nndescent_neighbors=12, target_recall=0).graph)
    assert short.method == "pynndescent(n_neighbors=12)"
    assert short.recall < 0.95 and short.recall == direct_recall(short.knn, exact)
    tuned = ann.build_knn(X, ranks, 10, low_threshold(nndescent_neighbors=12).graph)
    assert tuned.method in ("pynndescent(n_neighbors=24)", "pynndescent(n_neighbors=48)")
    assert tuned.recall >= 0.99 and tuned.recall == direct_recall(tuned.knn, exact)


def test_below_the_threshold_the_graph_stays_exact():
    X = clustered(400, seed=2)
    ranks = g.string_ranks([f"f{i:05d}" for i in range(400)])
    built = ann.build_knn(X, ranks, 10, Config().graph)
    assert built.method == "exact" and built.recall is None and built.note is None
    assert np.array_equal(built.knn.nbrs, g.exact_knn(X, ranks, 10).nbrs)


@pytest.mark.slow  # numba compiles pynndescent in each new process: 40 s to 2 min on two cores
def test_the_store_keeps_the_recall_and_the_cli_reports_it(tmp_path, one_thread):
    X = clustered(1600, seed=3)
    config = low_threshold(recall_sample=500)
    db, store, update = build_store(tmp_path, X[:1500], config)
    info = graph_info(store._conn)
    assert info.approximate and info.spaces == ("model",) and info.sample == 500 and info.recall >= 0.99
    assert update.notes == ()
    # 100 more facts: their lists are the exact ones, the recall of the build is kept
    src = write_jsonl(tmp_path / "more.jsonl", facts_with_embeddings(X[1500:], start=1500))
    import_facts(store, parse_file(src), str(src))
    with store.transaction() as conn:
        update = ensure_graph(conn, config)
    assert update.extended == ("model",)
    assert graph_info(store._conn) == info
    stored = {
        pos: np.frombuffer(nb, np.int32) - 1
        for pos, nb in store._conn.execute("SELECT pos, nbrs FROM knn WHERE pos > 1500")
    }
    Xs = g.normalise(np.round(X, 6))
    exact = g.exact_knn(Xs, g.string_ranks([f"f{i:05d}" for i in range(1600)]), 10)
    assert all(np.array_equal(stored[p], exact.nbrs[p - 1]) for p in stored) and len(stored) == 100
    store.close()
    cfg = tmp_path / "m.synapse.toml"
    cfg.write_text('[graph]\napproximate_above = 1000\nrecall_sample = 500\nroute = "approximate"\n')
    runner = CliRunner()
    shown = runner.invoke(main, ["show", str(db), "f00001", "--json", "--now", "2026-12-01T00:00:00Z"])
    graph = json.loads(shown.output)["graph"]
    assert graph["approximate"] is True and graph["recall"] == info.recall
    text = runner.invoke(main, ["show", str(db), "f00001", "--now", "2026-12-01T00:00:00Z"])
    assert "approximate neighbour graph" in text.output and f"{info.recall:.4f}" in text.output
    edges = runner.invoke(main, ["edges", str(db), "--json"])
    assert "approximate neighbour graph" in edges.stderr and f"recall@10 {info.recall:.4f}" in edges.stderr
    assert all(json.loads(line)["kind"] in ("semantic", "npmi") for line in edges.stdout.splitlines())


def test_without_the_extra_the_graph_is_exact_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "faiss", None)  # what an install without [scale] sees
    monkeypatch.setitem(sys.modules, "pynndescent", None)
    assert not ann.faiss_available() and not ann.nndescent_available()
    X = clustered(1200, seed=4)
    db, store, update = build_store(tmp_path, X, low_threshold())
    assert len(update.notes) == 1 and "[scale] extra" in update.notes[0] and "1,200 facts" in update.notes[0]
    assert graph_info(store._conn).approximate is False
    rows = store._conn.execute("SELECT nbrs FROM knn ORDER BY pos").fetchall()
    exact = g.exact_knn(g.normalise(np.round(X, 6)), g.string_ranks([f"f{i:05d}" for i in range(1200)]), 10)
    assert all(np.array_equal(np.frombuffer(r[0], np.int32) - 1, exact.nbrs[i]) for i, r in enumerate(rows))
    store.close()


def test_graph_settings_default_for_configs_that_predate_them():
    old = SimpleNamespace(k=10, npmi_min_count=2)
    assert ann.param(old, "approximate_above") == 50_000 and ann.param(old, "hnsw_m") == 16


def test_changing_the_index_settings_rebuilds_the_graph_and_defaults_do_not(tmp_path):
    X = clustered(300, seed=5)
    db, store, update = build_store(tmp_path, X, Config())
    assert "model" in update.rebuilt
    with store.transaction() as conn:
        assert not ensure_graph(conn, Config()).changed  # defaults: nothing to redo
        assert "model" in ensure_graph(conn, Config().with_values("graph", approximate_above=100)).rebuilt
        assert not ensure_graph(conn, Config().with_values("graph", approximate_above=100)).changed
        assert "model" in ensure_graph(conn, Config()).rebuilt
    assert graph_info(store._conn).approximate is False
    store.close()


@pytest.mark.parametrize(("n", "m", "k"), [(40_000, 600, 10), (3000, 3000, 14), (50, 7, 10)])
def test_exact_top_is_each_rows_exact_top_k(n: int, m: int, k: int) -> None:
    """The truth every recall is measured against: the rows' exact top-k, self excluded,
    across column blocks (the later ones merge only what beats a row's k-th)."""
    rng = np.random.default_rng(n)
    X = g.normalise(rng.standard_normal((n, 16)).astype(np.float32))
    rows = np.sort(rng.choice(n, m, replace=False))
    k = min(k, n - 1)
    found = ann.exact_top(X, rows, k)
    S = X[rows] @ X.T
    S[np.arange(m), rows] = -np.inf
    kth = -np.sort(-S, axis=1)[:, k - 1]
    assert (np.take_along_axis(S, found, axis=1) >= kth[:, None]).all()  # none below the k-th
    assert all(len(set(r)) == k for r in found.tolist()) and not (found == rows[:, None]).any()


def no_structure() -> np.ndarray:
    """Random directions: no cells hold a row's neighbours (six words of 12 would: a row
    searching a fifth of the cells, counting pairs found from either end)."""
    return g.normalise(np.random.default_rng(3).standard_normal((N, 256)))


def test_the_probed_search_agrees_with_exact_and_searches_few_cells() -> None:
    """Rows searched cell by cell: the cells a row must search are read off the tuning
    sample, the lists reach the target on the other sample, the edges agree with exact
    both ways, and the same vectors give the same lists."""
    X = clustered(N, seed=4)
    ranks = g.string_ranks([f"f{i:05d}" for i in range(N)])
    exact = g.exact_knn(X, ranks, 10)
    tune, report = ann.Truth.each(X, [ann.sample_rows(N, 1000, ann.SEED + 1), ann.sample_rows(N, 1000)], 10)
    plan = ann.plan_probes(X, 10, tune, 0.99)
    knn, reach = ann.probed_knn(X, ranks, 10, plan, tune, 0.99)
    assert reach == plan.reach < ann.ALL_CELLS and plan.work < 0.25  # far from an exact search
    assert report.recall(knn.nbrs, knn.cos) >= 0.99 and direct_recall(knn, exact) >= 0.99
    ours, truth = edge_set(knn), edge_set(exact)
    assert len(ours & truth) / len(truth) >= 0.98 and len(ours & truth) / len(ours) >= 0.98
    same = (knn.nbrs == exact.nbrs).all(axis=1)
    assert same.mean() > 0.9 and np.array_equal(knn.cos[same], exact.cos[same])
    again, _ = ann.probed_knn(X, ranks, 10, ann.plan_probes(X, 10, tune, 0.99), tune, 0.99)
    assert np.array_equal(again.nbrs, knn.nbrs) and np.array_equal(again.cos, knn.cos)
    # a plan too narrow (each row its own cell alone) widens until the tuning sample
    # reaches the target, searching afresh (each pair still offered to each end once: no
    # row listed twice)
    narrow = ann.Plan(plan.centres, plan.home, 0.0, plan.work)
    alone = ann.probed_knn(X, ranks, 10, narrow)[0]  # no tuning sample: as planned
    assert tune.recall(alone.nbrs, alone.cos) < 0.999
    seen: list[tuple[int, int]] = []
    wide, reach = ann.probed_knn(X, ranks, 10, narrow, tune, 0.999, lambda d, t: seen.append((d, t)))
    assert reach > 0 and tune.recall(wide.nbrs, wide.cos) >= 0.999
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1][0] == seen[-1][1]  # never back
    assert all(len(set(r)) == 10 and i not in r for i, r in enumerate(wide.nbrs.tolist()))
    assert all(len(set(r)) == 10 and i not in r for i, r in enumerate(knn.nbrs.tolist()))
    unstructured = no_structure()
    tune = ann.Truth.of(unstructured, ann.sample_rows(N, 1000, ann.SEED + 1), 10)
    assert ann.plan_probes(unstructured, 10, tune, 0.99).work > 0.25


def test_lexical_vectors_take_the_probed_search_without_any_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """With neither faiss nor pynndescent installed, a large lexical space whose rows
    cluster is still built approximately and says how; one without structure goes exact,
    with the note that names the extra."""
    monkeypatch.setattr(ann, "faiss_available", lambda: False)
    monkeypatch.setattr(ann, "nndescent_available", lambda: False)
    ranks = g.string_ranks([f"f{i:05d}" for i in range(N)])
    built = ann.build_knn(clustered(N, seed=4), ranks, 10, low_threshold().graph, lexical=True)
    assert built.method.startswith("probed(cells=") and built.recall >= 0.99 and built.sample == 1000
    built = ann.build_knn(no_structure(), ranks, 10, low_threshold().graph, lexical=True)
    assert built.method == "exact" and built.note == ann.MISSING


def test_recall_counts_a_neighbour_tied_with_the_tenth_as_found() -> None:
    """Two lists that differ only in which of two equally near rows they hold score the
    same (SPEC 3.1: a near-tie may fall either way); a farther row is a miss."""
    X = g.normalise(np.array([[1, 0, 0], [1, 0.1, 0], [1, 0, 0.1], [1, -0.1, 0], [0, 1, 0]], np.float32))
    truth = ann.Truth.of(X, np.array([0]), 2)
    cos = lambda nb: (X[nb] @ X[0])[None, :]  # noqa: E731
    for tied in ([1, 2], [1, 3], [2, 3]):  # rows 1, 2 and 3 are equally near row 0
        nbrs = np.array([tied])
        assert truth.recall(nbrs, cos(nbrs)) == 1.0
    nbrs = np.array([[1, 4]])
    assert truth.recall(nbrs, cos(nbrs)) == 0.5
