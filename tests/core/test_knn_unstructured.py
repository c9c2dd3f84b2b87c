"""The exact kNN on text without structure, where a tile's bars decide what is offered.

Facts of 6-14 words from a 12-word vocabulary: many exact duplicates (ties that go to the
smaller id) and a 10th neighbour barely above the crowd, so every tile of the exact search
lets many products through its group bars. Blocks are shrunk so that there are dozens of
tiles and each is wide enough for the bars to apply."""

from __future__ import annotations

import numpy as np
import pytest

from synapse_tui.core.graph import knn
from synapse_tui.core.graph.lexical import embed_texts

N = 1200
K = 10


@pytest.fixture
def tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(knn, "ROW_BLOCK", 128)  # 117 rows in 13 groups: the column bars apply
    monkeypatch.setattr(knn, "COL_BLOCK", 256)


def texts(n: int, seed: int = 3) -> list[str]:
    rng = np.random.default_rng(seed)
    vocab = "lorem ipsum dolor sitam amet conse adipi elitus sedo eiusm tempor incid".split()
    out = [" ".join(rng.choice(vocab, int(rng.integers(6, 15)))) for _ in range(n - n // 6)]
    return out + [out[int(i)] for i in rng.integers(0, len(out), n // 6)]  # a sixth repeated


def reference(X: np.ndarray, ranks: np.ndarray, k: int) -> np.ndarray:
    """Every pair's cosine as the search decides on it (`knn.dots`), each row's k best
    by (cosine, then smaller rank)."""
    out = np.empty((len(X), k), np.int64)
    for i0 in range(0, len(X), 16):
        P = knn.dots(X[i0 : i0 + 16, None, :], X[None, :, :])
        for a, i in enumerate(range(i0, min(i0 + 16, len(X)))):
            P[a, i] = -np.inf
            out[i] = np.lexsort((ranks, -P[a]))[:k]
    return out


def test_exact_lists_on_text_without_structure_equal_the_reference(tiles: None) -> None:
    X = embed_texts(texts(N))
    assert len({x.tobytes() for x in X}) < N  # duplicates: exact ties
    ranks = np.random.default_rng(5).permutation(N)
    expected = reference(X, ranks, K)
    assert np.array_equal(knn.exact_knn(X, ranks, K).nbrs, expected)
    old = knn.exact_knn(X[:900], np.argsort(np.argsort(ranks[:900])), K)
    extended, _ = knn.extend_knn(X, ranks, old, 900, K)
    assert np.array_equal(extended.nbrs, expected)
