"""The route of a large space chosen by what it costs here (issue 26): never an approximate
route priced over exact, never one that runs past exact's price, threads sized to the free
CPUs, and faiss's OpenMP told not to spin."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from synapse_tui.core.base.config import Config
from synapse_tui.core.graph import ann, cost
from synapse_tui.core.graph import edges as g

N, D = 3000, 48


def clustered(n: int, seed: int = 1, noise: float = 1.5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n // 30, D))
    return g.normalise(centres[rng.integers(0, len(centres), n)] + noise * rng.standard_normal((n, D)))


def cheapest(**extra: object) -> object:
    return Config().with_values("graph", approximate_above=1000, **extra).graph


@pytest.fixture
def hnsw_only(monkeypatch):
    pytest.importorskip("faiss")
    monkeypatch.setitem(sys.modules, "pynndescent", None)


def test_where_every_index_costs_more_than_exact_the_lists_are_exact(hnsw_only):
    """At 3,000 facts an exact search takes milliseconds: the index's trial prices it
    higher, so the build is exact, says nothing to the user, and shows its prices."""
    X = clustered(N)
    ranks = g.string_ranks([f"f{i:05d}" for i in range(N)])
    built = ann.build_knn(X, ranks, 10, cheapest())
    assert built.method == "exact" and built.note is None
    assert built.priced["faiss-hnsw"] > cost.MARGIN * built.priced["exact"] > 0
    assert np.array_equal(built.knn.nbrs, g.exact_knn(X, ranks, 10).nbrs)


def test_a_route_priced_under_exact_is_taken(hnsw_only, monkeypatch):
    monkeypatch.setattr(cost, "exact_seconds", lambda unit, n: 1e6)  # exact: very dear
    X = clustered(N)
    ranks = g.string_ranks([f"f{i:05d}" for i in range(N)])
    built = ann.build_knn(X, ranks, 10, cheapest())
    assert built.method.startswith("faiss-hnsw(") and built.recall >= 0.99
    assert built.priced["faiss-hnsw"] < built.priced["exact"]


def test_a_route_that_runs_past_exacts_price_gives_way_to_exact(hnsw_only, monkeypatch):
    """Priced cheap by its trial, the index then needs a wider search than the trial's:
    once the tuning searches show the whole would pass exact's price, the lists are built
    exact instead, and the note says why."""
    monkeypatch.setattr(cost, "MARGIN", 1e9)  # any price passes
    monkeypatch.setattr(cost, "exact_seconds", lambda unit, n: 1e-3)
    X = clustered(N)
    ranks = g.string_ranks([f"f{i:05d}" for i in range(N)])
    built = ann.build_knn(X, ranks, 10, cheapest(hnsw_ef_search=1))
    assert built.method == "exact" and built.note == ann.OVER_BUDGET
    assert np.array_equal(built.knn.nbrs, g.exact_knn(X, ranks, 10).nbrs)


def test_the_probed_search_keeps_to_its_budget() -> None:
    X = clustered(N, seed=4, noise=0.6)
    ranks = g.string_ranks([f"f{i:05d}" for i in range(N)])
    tune = ann.Truth.of(X, ann.sample_rows(N, 1000, ann.SEED + 1), 10)
    plan = ann.plan_probes(X, 10, tune, 0.99)
    narrow = ann.Plan(plan.centres, plan.home, 0.0, plan.work)  # must widen to reach 0.999
    with pytest.raises(cost.OverBudget):
        ann.probed_knn(X, ranks, 10, narrow, tune, 0.999, budget=cost.Budget(0.0))
    wide, reach = ann.probed_knn(X, ranks, 10, narrow, tune, 0.999, budget=cost.Budget(1e6))
    assert reach > 0 and tune.recall(wide.nbrs, wide.cos) >= 0.999


def test_lexical_text_without_structure_is_built_exact_without_blaming_the_extra(monkeypatch) -> None:
    """Base install, words at random: the probed search would cost more than exact, and
    the [scale] extra's index is no cheaper on such text, so no note names it."""
    monkeypatch.setattr(ann, "faiss_available", lambda: False)
    monkeypatch.setattr(ann, "nndescent_available", lambda: False)
    X = g.normalise(np.random.default_rng(3).standard_normal((N, 256)))
    ranks = g.string_ranks([f"f{i:05d}" for i in range(N)])
    built = ann.build_knn(X, ranks, 10, cheapest(), lexical=True)
    assert built.method == "exact" and built.note is None
    assert built.priced["probed"] > cost.MARGIN * built.priced["exact"]


def test_free_cpus_are_the_allowed_ones_the_load_leaves(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    for load, free in ((0.0, 4), (1.0, 4), (2.2, 3), (3.9, 1), (12.0, 1)):
        monkeypatch.setattr(os, "getloadavg", lambda load=load: (load, load, load))
        assert cost.free_cpus() == free


def test_threads_are_sized_and_restored():
    faiss = pytest.importorskip("faiss")
    before = faiss.omp_get_max_threads()
    with cost.sized_threads(1):
        assert faiss.omp_get_max_threads() == 1
    assert faiss.omp_get_max_threads() == before


def test_idle_threads_sleep_unless_told_otherwise():
    """Set before numpy or faiss can load (the package sets them on import), and a user's
    own setting is kept."""
    waits = ("OMP_WAIT_POLICY", "OPENBLAS_THREAD_TIMEOUT")
    env = {k: v for k, v in os.environ.items() if k not in waits}
    code = "import os, synapse_tui.core.graph.ann; print(os.environ['OMP_WAIT_POLICY'], os.environ['OPENBLAS_THREAD_TIMEOUT'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["PASSIVE", "4"]
    env["OPENBLAS_THREAD_TIMEOUT"] = "28"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["PASSIVE", "28"]


def test_an_unknown_route_is_a_config_error(tmp_path):
    from synapse_tui.core.base.config import load_config
    from synapse_tui.core.base.errors import ConfigError

    path = tmp_path / "c.toml"
    path.write_text('[graph]\nroute = "Exact"\n')
    assert load_config(path).graph.route == "exact"
    path.write_text("[graph]\nroute = 3\n")
    with pytest.raises(ConfigError, match="expected a string"):
        load_config(path)
    X = clustered(1200)
    with pytest.raises(ConfigError, match="none of cheapest, approximate, exact"):
        ann.build_knn(X, g.string_ranks([f"f{i:05d}" for i in range(1200)]), 10, cheapest(route="fast"))
