"""NPMI's pairs (SPEC 3.2) are counted only for entities that can form an edge: a note naming
thousands of entities found in no other note costs memory in its entities, not their square
(issue 37: no operation's memory may grow with n^2)."""

from __future__ import annotations

import itertools
import math
import tracemalloc
from collections import Counter

import numpy as np

from synapse_tui.core.graph.edges import npmi_edges


def reference(units: dict[int, set[int]], min_count: int) -> dict[tuple[int, int], float]:
    """SPEC 3.2 spelled out, pair by pair."""
    n = sum(1 for ents in units.values() if ents)
    n_x = Counter(e for ents in units.values() for e in ents)
    n_xy = Counter(p for ents in units.values() for p in itertools.combinations(sorted(ents), 2))
    out = {}
    for (a, b), c in n_xy.items():
        if c < min_count:
            continue
        p = c / n
        w = 1.0 if c == n else math.log(p / ((n_x[a] / n) * (n_x[b] / n))) / -math.log(p)
        if min(max(w, 0.0), 1.0) > 0:
            out[(a, b)] = min(w, 1.0)
    return out


def test_edges_are_the_specs_with_rare_entities_left_unpaired():
    rng = np.random.default_rng(7)
    units = {k: set(rng.choice(60, rng.integers(0, 8), replace=False).tolist()) for k in range(300)}
    units[300] = set(range(1000, 1400))  # a note of its own entities only
    unit = np.array([k for k, ents in units.items() for _ in ents])
    entity = np.array([e for ents in units.values() for e in ents])
    for min_count in (1, 2, 3):
        a, b, w, _ = npmi_edges(unit, entity, 1400, min_count)
        got = dict(zip(zip(a.tolist(), b.tolist(), strict=True), w.tolist(), strict=True))
        want = reference(units, min_count)
        assert got.keys() == want.keys()
        assert all(math.isclose(got[k], want[k], rel_tol=1e-9) for k in want)


def test_a_note_naming_thousands_of_unshared_entities_costs_no_pairs():
    ordinary = [(k, e) for k in range(1, 500) for e in (k % 40, (k * 7) % 40 + 40)]
    unit = np.array([0] * 6000 + [k for k, _ in ordinary])
    entity = np.array(list(range(100, 6100)) + [e for _, e in ordinary])
    tracemalloc.start()
    try:
        a, _, _, _ = npmi_edges(unit, entity, 6100, 2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert a.size > 0  # the ordinary notes still give their edges
    assert peak < 20_000_000  # 6,000 entities paired would be 18 million pairs, hundreds of MB
