"""SPEC section 3 rules on hand-worked graphs, and the fast paths against brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synapse_tui.core.graph import edges as g
from synapse_tui.core.graph import knn
from synapse_tui.core.graph.lexical import embed_texts


def brute_knn(X: np.ndarray, ids: list[str], k: int) -> tuple[list[list[int]], np.ndarray]:
    """O(N^2) reference: sort every row by (-cos, id)."""
    n = len(ids)
    k = min(k, n - 1)
    S = X.astype(np.float64) @ X.astype(np.float64).T
    lists = []
    for i in range(n):
        js = sorted((j for j in range(n) if j != i), key=lambda j: (-S[i, j], ids[j]))
        lists.append(js[:k])
    return lists, S


def brute_edges(X: np.ndarray, ids: list[str], k: int) -> dict[tuple[int, int], float]:
    lists, S = brute_knn(X, ids, k)
    mu = [float(np.mean([S[i, j] for j in lst])) if lst else 0.0 for i, lst in enumerate(lists)]

    def w(i: int, j: int) -> float:
        if mu[i] >= 1 - 1e-6:
            return 1.0
        return min(1.0, max(0.0, (S[i, j] - mu[i]) / (1 - mu[i])))

    edges = {}
    for i, lst in enumerate(lists):
        for j in lst:
            if i < j and i in lists[j]:
                weight = (w(i, j) + w(j, i)) / 2
                if weight > 0:
                    edges[(i, j)] = weight
    return edges


def edges_of(X: np.ndarray, ids: list[str], k: int) -> dict[tuple[int, int], float]:
    a, b, w = g.mutual_edges(g.exact_knn(g.normalise(X), g.string_ranks(ids), k))
    return {(int(x), int(y)): float(v) for x, y, v in zip(a, b, w, strict=True)}


def tie_rich(rng: np.random.Generator, n: int) -> np.ndarray:
    """+-1 vectors in 16 dimensions: cosines are exact multiples of 1/16, ties everywhere."""
    X = rng.choice([-1.0, 1.0], size=(n, 16))
    X[rng.random(n) < 0.3] = X[0]
    return X


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(knn, "ROW_BLOCK", 3)
    monkeypatch.setattr(knn, "COL_BLOCK", 5)


def test_ties_go_to_the_smaller_id_in_string_order() -> None:
    X = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    ids = ["b", "a10", "a9", "z"]  # string order: a10 < a9 < b < z
    knn = g.exact_knn(g.normalise(X), g.string_ranks(ids), 1)
    assert knn.nbrs[:, 0].tolist() == [1, 2, 1, 1]


def test_k_is_capped_at_n_minus_one_and_duplicates_weigh_one() -> None:
    X = np.array([[3.0, 4.0], [3.0, 4.0], [3.0, 4.0]])
    edges = edges_of(X, ["x", "y", "z"], k=10)
    assert edges == {(0, 1): 1.0, (0, 2): 1.0, (1, 2): 1.0}


def test_single_fact_and_empty_have_no_edges() -> None:
    assert edges_of(np.ones((1, 3)), ["a"], 10) == {}
    assert edges_of(np.zeros((0, 3)), [], 10) == {}


def test_hand_worked_weights_and_weight_zero_dropped() -> None:
    # Unit vectors on a circle at 0, 60 and 180 degrees, k = 1.
    ang = np.radians([0.0, 60.0, 180.0])
    X = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    # kNN: 0 -> 1, 1 -> 0, 2 -> 1 (cos 120 deg = -0.5 beats 180 deg = -1).
    # mu_0 = mu_1 = 0.5 and cos(0,1) = 0.5, so both directed weights are 0: dropped.
    assert edges_of(X, ["a", "b", "c"], 1) == {}
    # k = 2: every list holds the other two points.
    # mu_0 = (0.5 - 1) / 2 = -0.25; w_0(1) = (0.5 + 0.25) / 1.25 = 0.6; w_0(2) = 0.
    # mu_1 = (0.5 - 0.5) / 2 = 0; w_1(0) = 0.5, w_1(2) = 0 (cos -0.5 < 0).
    # mu_2 = (-1 - 0.5) / 2 = -0.75; w_2(1) = 0.25 / 1.75; w_2(0) = 0.
    edges = edges_of(X, ["a", "b", "c"], 2)
    assert set(edges) == {(0, 1), (1, 2)}
    assert edges[(0, 1)] == pytest.approx((0.6 + 0.5) / 2, abs=1e-6)
    assert edges[(1, 2)] == pytest.approx((0.0 + 0.25 / 1.75) / 2, abs=1e-6)


def test_gate_is_mutual_membership_not_a_cosine_threshold() -> None:
    # Points at 0, 10, 20 and 180 degrees, k = 2. Nobody lists 3 (its lists are {2, 1}),
    # so it gets no edge. Within {0, 1, 2}: w_0(1) > 0 and w_2(1) > 0; w_1 is 0 both ways
    # (its two cosines equal its mean) and (0, 2) is 0 both ways, so it is dropped.
    ang = np.radians([0.0, 10.0, 20.0, 180.0])
    X = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    edges = edges_of(X, ["a", "b", "c", "d"], 2)
    assert set(edges) == {(0, 1), (1, 2)}
    c10, c20 = math.cos(math.radians(10)), math.cos(math.radians(20))
    mu0 = (c10 + c20) / 2
    assert edges[(0, 1)] == pytest.approx((c10 - mu0) / (1 - mu0) / 2, abs=1e-5)


@pytest.mark.parametrize("seed", range(6))
def test_blockwise_knn_equals_brute_force_on_ties(seed: int, small_blocks: None) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    X = tie_rich(rng, n)
    ids = [f"{int(rng.integers(0, 50))}-{i}" for i in range(n)]
    k = int(rng.integers(1, 8))
    knn = g.exact_knn(g.normalise(X), g.string_ranks(ids), k)
    assert knn.nbrs.tolist() == brute_knn(X / 4.0, ids, k)[0]
    assert edges_of(X, ids, k) == pytest.approx(brute_edges(X / 4.0, ids, k))


def test_blockwise_knn_equals_brute_force_on_gaussian_data() -> None:
    rng = np.random.default_rng(7)
    X = g.normalise(rng.standard_normal((3000, 12)))
    ids = [f"id{i}" for i in rng.permutation(3000)]
    knn = g.exact_knn(X, g.string_ranks(ids), 5)
    S = X.astype(np.float64) @ X.astype(np.float64).T
    np.fill_diagonal(S, -np.inf)
    best = -np.sort(-S, axis=1)[:, :5]
    got = np.take_along_axis(S, knn.nbrs, axis=1)
    assert np.abs(got - best).max() < 1e-6


@pytest.mark.parametrize("seed", range(6))
def test_incremental_knn_equals_full_rebuild(seed: int, small_blocks: None) -> None:
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(12, 40))
    X = g.normalise(tie_rich(rng, n))
    ids = [f"{int(rng.integers(0, 50))}-{i}" for i in range(n)]
    n_old = int(rng.integers(9, n))
    old = g.exact_knn(X[:n_old], g.string_ranks(ids[:n_old]), 8)
    new, changed = g.extend_knn(X, g.string_ranks(ids), old, n_old, 8)
    full = g.exact_knn(X, g.string_ranks(ids), 8)
    assert new.nbrs.tolist() == full.nbrs.tolist()
    assert np.array_equal(new.cos, full.cos)
    assert changed[n_old:].all()
    assert np.array_equal(changed[:n_old], (old.nbrs != full.nbrs[:n_old]).any(axis=1))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 30).flatmap(
        lambda n: st.tuples(
            st.lists(st.lists(st.integers(-3, 3), min_size=4, max_size=4), min_size=n, max_size=n),
            st.integers(1, 12),
        )
    )
)
def test_edges_are_symmetric_with_weights_in_unit_interval(case: tuple[list[list[int]], int]) -> None:
    rows, k = case
    X = np.array(rows, dtype=np.float64)
    X[~X.any(axis=1)] = 1.0
    ids = [f"f{i}" for i in range(len(rows))]
    knn = g.exact_knn(g.normalise(X), g.string_ranks(ids), k)
    a, b, w = g.mutual_edges(knn)
    assert np.all(a < b)
    assert np.all((w > 0) & (w <= 1))
    for x, y in zip(a, b, strict=True):
        assert y in knn.nbrs[x] and x in knn.nbrs[y]
    assert len(set(zip(a.tolist(), b.tolist(), strict=True))) == a.size


def npmi_dict(unit: list[int], ent: list[int], n_ent: int, min_count: int = 2) -> dict:
    a, b, w, n = g.npmi_edges(np.array(unit), np.array(ent), n_ent, min_count)
    return {(int(x), int(y)): (float(v), int(c)) for x, y, v, c in zip(a, b, w, n, strict=True)}


def test_npmi_hand_worked() -> None:
    # 4 units: {0,1}, {0,1}, {0,2}, {2}. N = 4.
    unit = [0, 0, 1, 1, 2, 2, 3]
    ent = [0, 1, 0, 1, 0, 2, 2]
    edges = npmi_dict(unit, ent, 3)
    # (0,1): n=2, p=0.5, p0=0.75, p1=0.5 -> ln(0.5/0.375)/ln 2.
    assert set(edges) == {(0, 1)}
    assert edges[(0, 1)][0] == pytest.approx(math.log(0.5 / 0.375) / math.log(2))
    assert edges[(0, 1)][1] == 2
    # min count 1 admits (0,2): n=1, p=.25, p0=.75, p2=.5 -> ln(.25/.375) < 0 -> clamped 0, dropped.
    assert set(npmi_dict(unit, ent, 3, min_count=1)) == {(0, 1)}


def test_npmi_is_one_when_the_pair_is_in_every_unit() -> None:
    edges = npmi_dict([0, 0, 1, 1, 1], [0, 1, 0, 1, 0], 2)
    assert edges == {(0, 1): (1.0, 2)}


def test_npmi_counts_only_units_with_entities_and_ignores_repeats() -> None:
    edges = npmi_dict([0, 0, 0, 1, 1], [0, 1, 1, 1, 0], 2)
    assert edges == {(0, 1): (1.0, 2)}


@pytest.mark.parametrize(
    ("vec", "dim", "ok"),
    [
        ([0.1, 0.2], 2, True),
        ([0.0, 0.0], 2, False),
        ([float("nan"), 1.0], 2, False),
        ([float("inf"), 1.0], 2, False),
        ([1.0, 2.0, 3.0], 2, False),
        ([], None, False),
        ([True, 1.0], 2, False),
        ("12", 2, False),
        ([1e-320, 0.0], 2, True),
        ([1e300, 1e300], 2, True),
    ],
)
def test_validate_embedding(vec: object, dim: int | None, ok: bool) -> None:
    assert (g.validate_embedding(vec, dim) is None) == ok


def test_lexical_embedder_is_deterministic_and_lexical() -> None:
    E = embed_texts(["The cat sat on the mat", "the  CAT sat on the mat", "Quantum chromodynamics", ""])
    assert np.allclose(np.linalg.norm(E, axis=1), 1.0, atol=1e-6)
    assert E[0] @ E[1] > 0.9 > E[0] @ E[2]
    assert np.array_equal(
        E, embed_texts(["The cat sat on the mat", "the  CAT sat on the mat", "Quantum chromodynamics", ""])
    )
    assert np.array_equal(E[2], embed_texts(["Quantum chromodynamics"])[0])
