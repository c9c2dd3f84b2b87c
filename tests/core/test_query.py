"""The filter language: what matches, and what a typo says."""

from __future__ import annotations

import numpy as np
import pytest

from synapse_tui.core.base.errors import QueryError
from synapse_tui.core.review import query as fq
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from tests.helpers import trusted_config


@pytest.fixture
def memory(store_location, now):
    store = Store.open(store_location, readonly=True)
    yield Memory(store, trusted_config(), now)
    store.close()


def ids(memory, q):
    return sorted(memory.ids[i] for i in fq.run(memory, q))


def test_comparisons_and_keys(memory):
    assert ids(memory, "k>=1") == ["a"]
    assert ids(memory, "tier:signed") == ["c"]
    assert ids(memory, "-tier:auto") == ["b", "c"]
    assert ids(memory, "flag:signature_invalid") == ["d"]
    assert ids(memory, "guidance:disputed") == ["e"]
    assert ids(memory, "d>0.25 u<=0.5") == ["e"]
    assert ids(memory, "is:superseded") == ["a"]
    assert ids(memory, "trust<2") == ["a", "b", "c", "d", "e"]


def test_words_are_full_text_and_combine_with_filters(memory):
    assert ids(memory, "maria") == ["a", "b"]
    assert ids(memory, "maria tier:human") == ["b"]
    assert ids(memory, "red") == ["e"]


@pytest.mark.parametrize(
    ("text", "token", "position", "says"),
    [
        ("trsut<0.3", "trsut<0.3", 0, "did you mean 'trust'"),
        ("maria trust<abc", "trust<abc", 6, "needs a number"),
        ("tier:admin", "tier:admin", 0, "takes one of auto, human, signed"),
        ("x gudiance:disputed", "gudiance:disputed", 2, "did you mean 'guidance'"),
    ],
)
def test_typos_point_at_the_bad_token(text, token, position, says):
    with pytest.raises(QueryError) as info:
        fq.parse(text)
    err = info.value
    assert (err.token, err.position) == (token, position)
    assert says in str(err)
    assert err.caret().splitlines()[1].index("^") == position


def test_ranking_order_and_top_equal_a_stable_sort():
    """`order` (unstable sort plus a fix-up of ties) and `top` (partition, then sort) give
    exactly what a stable sort highest-first gives: ties in store order."""
    rng = np.random.default_rng(1)
    for _ in range(500):
        n = int(rng.integers(0, 60))
        values = rng.choice([0.1, 0.3, 0.5], n) if rng.random() < 0.5 else rng.random(n)
        positions = np.sort(rng.choice(200, n, replace=False))
        expected = positions[np.argsort(-values, kind="stable")]
        assert np.array_equal(positions[fq.order(values)], expected)
        limit = int(rng.integers(1, 20))
        assert np.array_equal(fq.top(values, positions, limit), expected[:limit])
