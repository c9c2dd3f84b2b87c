"""The score of a few facts read straight from the store equals the whole store's score."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.spot import depth, spot_scores
from tests.helpers import trusted_config, write_jsonl

NOW = parse_time("2026-12-01T00:00:00Z")


def chain_facts() -> list[dict]:
    """v1 <- v2 <- v3 (head), and v1 <- w (a second, branch head): k(v1) is 1, via w."""
    t = "2026-10-01T00:00:00Z"
    return [
        {"id": "v1", "text": "v1", "created_at": t},
        {"id": "v2", "text": "v2", "created_at": t, "supersedes": "v1", "reinforcement_count": 5},
        {"id": "v3", "text": "v3", "created_at": t, "supersedes": "v2", "reinforced_at": [t]},
        {"id": "w", "text": "w", "created_at": t, "supersedes": "v1", "contradictions": 2},
        {"id": "x", "text": "x", "created_at": "2026-12-05T00:00:00Z"},  # clock skew
    ]


@pytest.fixture
def stores(tmp_path, store_location, new_store):
    """The base facts and a supersession chain, each in a store on the test's backend."""
    chain = new_store("chain")
    with Store.open(chain, create=True) as store:
        import_facts(store, parse_file(write_jsonl(tmp_path / "c.jsonl", chain_facts())), "c.jsonl")
    return [store_location, chain]


def test_spot_scores_match_the_full_score_of_every_fact(stores):
    for path in stores:
        with Store.open(path) as store:
            memory = Memory(store, trusted_config(), NOW)
            spot = spot_scores(store, trusted_config(), NOW, list(memory.ids) + ["unknown"])
            assert set(spot) == set(memory.ids)
            for fid in memory.ids:
                row = memory.row(memory.index[fid])
                for key in ("trust", "confidence", "freshness", "supersession", "gate", "B"):
                    assert spot[fid][key] == pytest.approx(row[key], rel=1e-12), (path, fid, key)
                assert (spot[fid]["band"], spot[fid]["tier"], spot[fid]["k"]) == (
                    row["band"],
                    row["tier"],
                    row["k"],
                )


def test_depth_walks_to_the_nearest_head(stores):
    with Store.open(stores[1]) as store:
        assert [depth(store, f) for f in ("v1", "v2", "v3", "w", "x")] == [1, 1, 0, 0, 0]


def test_triage_without_a_config_reads_the_one_beside_the_store(tmp_path, store_path):
    """The browser builds `Triage(store, clock)`: score_before then uses DB.synapse.toml."""
    (store_path.parent / (store_path.stem + ".synapse.toml")).write_text("[provenance]\ngate_auto = 0.5\n")
    with Store.open(store_path) as store:
        outcome = Triage(store, Clock(NOW)).apply("verify", ["e"])
        assert outcome.scores_before["e"]["gate"] == 0.5
        assert store.history("e")[-1].score_before == outcome.scores_before["e"]
