"""Search relevance and the cached reads behind `neighbours`, on a real SQLite file and on a
real server (tests/backends.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.graph.build import update_graph
from synapse_tui.core.graph.read import (
    entity_name,
    entity_names,
    neighbours,
    read_entity_names,
    seed_entity_names,
)
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review import query as fq
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl
from tests.word_index import WordIndex

FILLER = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()


def facts(n: int, start: int = 0, seed: int = 0) -> list[dict]:
    """Facts of very different lengths (up to 300 words, so FTS5 stores some token counts
    in two bytes); 'payments' in every third, 'ledger' in every fifth, 'zebra' in every
    37th, never twice in one."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(start, start + n):
        words = list(rng.choice(FILLER, int(rng.choice([2, 5, 12, 40, 300]))))
        if i % 3 == 0:
            words.insert(int(rng.integers(0, len(words) + 1)), "payments")
        if i % 5 == 0:
            words.insert(int(rng.integers(0, len(words) + 1)), "ledger")
        if i % 37 == 0:
            words.insert(int(rng.integers(0, len(words) + 1)), "zebra")
        out.append({"id": f"x{i:04d}", "text": " ".join(words), "created_at": "2026-11-01T00:00:00Z"})
    return out


def fts5_bm25(index: WordIndex, words: str) -> tuple[np.ndarray, np.ndarray]:
    match = " ".join(f'"{w}"*' for w in words.split())
    rows = index.execute(
        "SELECT rowid, -bm25(facts_fts) FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rowid", (match,)
    )
    return np.array([r[0] - 1 for r in rows]), np.array([r[1] for r in rows])


def assert_bm25_up_to_a_constant(store: Store, index: WordIndex, words: str) -> None:
    """The store's relevance is FTS5's own bm25 over the same facts (`index`)."""
    pos, relevance = store.search(words)
    expected_pos, bm25 = fts5_bm25(index, words)
    assert np.array_equal(pos, expected_pos)
    ratio = relevance / bm25  # the idf sum: the same for every match
    assert np.allclose(ratio, ratio[0], rtol=1e-9)
    assert bm25.std() > 0  # lengths differ, so this compares orders, not constants


@pytest.fixture
def store(new_store, tmp_path):
    db = new_store("s")
    with Store.open(db, create=True) as s:
        import_facts(s, parse_file(write_jsonl(tmp_path / "a.jsonl", facts(200))), "a")
    s = Store.open(db)
    yield s
    s.close()


@pytest.fixture
def index() -> WordIndex:
    """FTS5's index of the `store` fixture's facts."""
    return WordIndex(facts(200))


def test_relevance_is_fts5_bm25_when_no_word_repeats(store, index):
    # a rare word first: its own rows' token counts; then broad ones: the whole table's
    for words in ("zebra", "payments", "payments ledger", "ledg", "pay ledger", "zebra"):
        assert_bm25_up_to_a_constant(store, index, words)
    # with a limit, the most relevant first
    pos, rel = store.search("payments", limit=5)
    assert len(pos) == 5 and list(rel) == sorted(rel, reverse=True)
    everything, all_rel = store.search("payments")
    assert rel[0] == all_rel.max()


def test_facts_added_after_a_search_are_found_and_weighed(store, index, tmp_path):
    store.search("payments")  # reads the token counts
    with Store.open(store.path) as other:  # another process appends facts
        more = facts(60, start=200, seed=1)
        import_facts(other, parse_file(write_jsonl(tmp_path / "b.jsonl", more)), "b")
        index.add(more)
    pos, _ = store.search("payments")
    assert store.ids_at(pos.tolist())[-1] == "x0258"
    assert_bm25_up_to_a_constant(store, index, "payments")  # the average length moved too
    with Store.open(store.path) as other:
        more = facts(40, start=260, seed=2)
        import_facts(other, parse_file(write_jsonl(tmp_path / "c.jsonl", more)), "c")
        index.add(more)
    assert store.ids_at(store.search("zebra")[0].tolist())[-2:] == ["x0259", "x0296"]
    assert_bm25_up_to_a_constant(store, index, "zebra")  # old rows from the table read, new ones by id


def test_search_ranks_shorter_facts_first_at_equal_freshness(new_store, tmp_path):
    db = new_store("s")
    rows = [
        {"id": "long", "text": "payments " + " ".join(FILLER * 3), "created_at": "2026-11-01T00:00:00Z"},
        {"id": "short", "text": "payments api", "created_at": "2026-11-01T00:00:00Z"},
        {"id": "medium", "text": "the payments api and its owner", "created_at": "2026-11-01T00:00:00Z"},
        {"id": "other", "text": "billing", "created_at": "2026-11-01T00:00:00Z"},
    ]
    with Store.open(db, create=True) as s:
        import_facts(s, parse_file(write_jsonl(tmp_path / "a.jsonl", rows)), "a")
        memory = Memory(s, Config(), parse_time("2026-12-01T00:00:00Z"))
        assert [memory.ids[i] for i in fq.run(memory, "payments")] == ["short", "medium", "long"]
        # any word reaches a fact; those holding every word come first
        assert [memory.ids[i] for i in fq.run(memory, "pay api")] == ["short", "medium", "long"]
        assert [memory.ids[i] for i in fq.run(memory, "medi")] == ["medium"]  # ids are searched too
        assert [memory.ids[i] for i in fq.run(memory, "payments -tier:auto")] == []


def mentioning(start: int, n: int, spelling: str) -> list[dict]:
    return [
        {
            "id": f"m{start + i:03d}",
            "text": f"fact {start + i}",
            "created_at": "2026-11-01T00:00:00Z",
            "entities": [spelling, "Ledger"],
        }
        for i in range(n)
    ]


def test_entity_names_follow_new_mentions_from_any_connection(new_store, tmp_path):
    db = new_store("s")
    with Store.open(db, create=True) as s:
        import_facts(s, parse_file(write_jsonl(tmp_path / "a.jsonl", mentioning(0, 3, "PayOps"))), "a")
    store = Store.open(db)
    eid = store._conn.execute("SELECT eid FROM entities WHERE key = 'payops'").fetchone()[0]
    assert entity_name(store._conn, eid) == "PayOps"
    assert [e["name"] for e in neighbours(store, "m000").to_json()["entities"]] == ["Ledger", "PayOps"]
    with Store.open(db) as other:  # another connection: the commonest spelling changes
        import_facts(other, parse_file(write_jsonl(tmp_path / "b.jsonl", mentioning(3, 4, "payops"))), "b")
    assert entity_name(store._conn, eid) == "payops"
    # this connection's own import
    import_facts(store, parse_file(write_jsonl(tmp_path / "c.jsonl", mentioning(7, 5, "PAYOPS"))), "c")
    assert entity_name(store._conn, eid) == "PAYOPS"
    assert neighbours(store, "m000").to_json()["entities"][1]["name"] == "PAYOPS"
    store.close()


def test_pagerank_shown_is_the_stored_graphs_after_an_update(new_store, tmp_path):
    db = new_store("s")
    with Store.open(db, create=True) as s:
        result = import_facts(
            s, parse_file(write_jsonl(tmp_path / "a.jsonl", mentioning(0, 3, "PayOps"))), "a"
        )
        with s.transaction():
            update_graph(s, result.new_positions, Config())
    store = Store.open(db)
    before = neighbours(store, "m000").to_json()["entities"]
    with Store.open(db) as other:
        more = [{**f, "entities": ["Ledger", "Audit"]} for f in mentioning(3, 6, "x")]
        result = import_facts(other, parse_file(write_jsonl(tmp_path / "b.jsonl", more)), "b")
        with other.transaction():
            update_graph(other, result.new_positions, Config())
    after = neighbours(store, "m000").to_json()["entities"]
    stored = json.loads(
        store._conn.execute("SELECT value FROM meta WHERE key = 'graph.pagerank'").fetchone()[0]
    )
    ledger = store._conn.execute("SELECT eid FROM entities WHERE key = 'ledger'").fetchone()[0]
    assert [e["pagerank"] for e in after] != [e["pagerank"] for e in before]
    assert {e["name"]: e["pagerank"] for e in after}["Ledger"] == stored[str(ledger)]
    store.close()


def test_prepared_search_gives_the_same_answer(store, index):
    cold_pos, cold_rel = store.search("zebra")  # its own rows only
    store.prepare_search()
    warm_pos, warm_rel = store.search("zebra")
    assert np.array_equal(cold_pos, warm_pos) and np.allclose(cold_rel, warm_rel, rtol=1e-12)
    assert_bm25_up_to_a_constant(store, index, "payments ledger")


def test_names_read_elsewhere_are_handed_over_only_while_current(new_store, tmp_path):
    db = new_store("s")
    rows = mentioning(0, 3, "PayOps") + mentioning(3, 3, "payops") + mentioning(6, 1, "PAYOPS")
    with Store.open(db, create=True) as s:
        import_facts(s, parse_file(write_jsonl(tmp_path / "a.jsonl", rows)), "a")
    with Store.open(db) as store, Store.open(db, readonly=True) as reader:
        mark, names = read_entity_names(reader)
        eids = [e for (e,) in store._conn.execute("SELECT eid FROM entities ORDER BY eid")]
        assert names == {e: entity_name(reader._conn, e) for e in eids}
        assert sorted(names.values()) == ["Ledger", "PayOps"]  # 3 against 3: the smaller spelling
        seed_entity_names(store, mark, {e: "seeded" for e in eids})
        assert set(entity_names(store._conn, eids).values()) == {"seeded"}  # taken as read
        import_facts(store, parse_file(write_jsonl(tmp_path / "b.jsonl", mentioning(7, 2, "payops"))), "b")
        seed_entity_names(store, mark, {e: "stale" for e in eids})  # read before that import
        assert sorted(entity_names(store._conn, eids).values()) == ["Ledger", "payops"]
