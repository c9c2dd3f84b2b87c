"""The neighbour graph of the bundled sample (real MiniLM embeddings) against a plain,
brute-force reading of SPEC section 3."""

from __future__ import annotations

import json
import math
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from synapse_tui.core.graph.build import load_edges
from synapse_tui.core.ingest.sample import bundled, ensure_sample
from synapse_tui.core.store.db import Store

K = 10
TIE = 1e-6  # SPEC 3.1: a near-tie within 1e-6 may fall either way


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SYNAPSE_DATA_DIR", str(tmp_path_factory.mktemp("graphref")))
        path = ensure_sample()
    with Store.open(path, readonly=True) as store:
        ids = [row[0] for row in store._conn.execute("SELECT id FROM facts ORDER BY pos")]
        vecs = store._conn.execute("SELECT pos, kind, vec FROM embeddings ORDER BY pos").fetchall()
        edges = load_edges(store)
    assert {kind for _, kind, _ in vecs} == {"model"}  # the sample keeps its model embeddings
    X = np.stack([np.frombuffer(v, dtype=np.float32) for _, _, v in vecs]).astype(np.float64)
    return ids, X, edges


@pytest.mark.slow  # a brute-force reference over the sample: a minute on two cores
def test_semantic_edges_match_brute_force_mutual_knn(sample):
    ids, X, edges = sample
    n = len(ids)
    cos = X @ X.T
    knn, mu, ambiguous = [], np.empty(n), set()
    for i in range(n):
        order = sorted((j for j in range(n) if j != i), key=lambda j: (-cos[i, j], ids[j]))
        top = order[:K]
        knn.append(set(top))
        mu[i] = np.mean([cos[i, j] for j in top])
        if 0 < cos[i, order[K - 1]] - cos[i, order[K]] < TIE:  # exact ties go by id, no doubt
            ambiguous.add(i)
    expected = {}
    for i in range(n):
        for j in knn[i]:
            if i < j and i in knn[j]:
                wi = 1.0 if mu[i] >= 1 else max(0.0, (cos[i, j] - mu[i]) / (1 - mu[i]))
                wj = 1.0 if mu[j] >= 1 else max(0.0, (cos[j, i] - mu[j]) / (1 - mu[j]))
                if (wi + wj) / 2 > 0:
                    expected[tuple(sorted((ids[i], ids[j])))] = (wi + wj) / 2
    got = {(e.a, e.b): e.weight for e in edges if e.kind == "semantic"}
    index = {fid: i for i, fid in enumerate(ids)}
    differ = {
        pair for pair in expected.keys() ^ got.keys() if not {index[pair[0]], index[pair[1]]} & ambiguous
    }
    assert not differ
    assert len(ambiguous) < n // 20  # near-ties are the exception, not the rule
    for pair in expected.keys() & got.keys():
        assert got[pair] == pytest.approx(expected[pair], abs=1e-5), pair


def test_npmi_edges_match_the_definition(sample):
    _, _, edges = sample
    facts = [
        json.loads(line) for line in (bundled() / "facts.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    units: dict[str, set[str]] = {}
    for f in facts:
        units.setdefault(f.get("note") or f"fact:{f['id']}", set()).update(
            e.strip().casefold() for e in f.get("entities", [])
        )
    units = {u: ents for u, ents in units.items() if ents}
    N = len(units)
    single = Counter(e for ents in units.values() for e in ents)
    pairs = Counter(pair for ents in units.values() for pair in combinations(sorted(ents), 2))
    expected = {}
    for (x, y), nxy in pairs.items():
        if nxy < 2:
            continue
        pxy, px, py = nxy / N, single[x] / N, single[y] / N
        npmi = 1.0 if pxy == 1 else math.log(pxy / (px * py)) / -math.log(pxy)
        npmi = min(1.0, max(0.0, npmi))
        if npmi > 0:
            expected[(x, y)] = npmi
    got = {(e.a, e.b): e.weight for e in edges if e.kind == "npmi"}
    assert got.keys() == expected.keys() and len(got) > 100
    for pair, weight in expected.items():
        assert got[pair] == pytest.approx(weight, abs=1e-9), pair
