"""Word search (store/words.py): a page of the BM25 order, and the term rows kept between
searches, checked against a store that has kept nothing; on a file and on a server, whose
process keeps FTS5's index of the facts (store/postgres/words.py)."""

from __future__ import annotations

import numpy as np
import pytest

from synapse_tui.core.base.location import is_server
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl
from tests.word_index import WordIndex

VOCAB = "payments ledger api gateway invoice owner team cache queue worker".split()


def facts(n: int, start: int = 0, seed: int = 0) -> list[dict]:
    """Facts of 2-30 words, 'payments' in about half of them, so many match and lengths
    (and with them BM25) differ; ids of the same length, so an id is never a prefix hit."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(start, start + n):
        text = " ".join(rng.choice(VOCAB[1:], int(rng.integers(2, 30))))
        if rng.random() < 0.5:
            text = "payments " + text
        out.append({"id": f"w{i:05d}", "text": text, "created_at": "2026-11-01T00:00:00Z"})
    return out


def filled(location, tmp_path):
    with Store.open(location, create=True) as s:
        import_facts(s, parse_file(write_jsonl(tmp_path / "a.jsonl", facts(600))), "a")
    return location


@pytest.fixture
def db(new_store, tmp_path):
    return filled(new_store("w"), tmp_path)


@pytest.fixture
def file_db(tmp_path):
    """The same store, on a file only: for what only a file's FTS5 table can be made to do."""
    return filled(tmp_path / "w.db", tmp_path)


def full_order(found) -> np.ndarray:
    """Every match, best first, ties in position order."""
    return found.pos[np.lexsort((found.pos, -found.relevance))]


def fresh(db, terms, weights=None):
    """The answer of a store that has kept nothing between searches."""
    with Store.open(db, readonly=True) as other:
        return other.search_any(terms, weights)


def test_one_word_orders_as_fts5s_own_bm25(db):
    with Store.open(db, readonly=True) as store:
        pos = full_order(store.search_any(["payments"]))[:50]
    rows = WordIndex(facts(600)).execute(
        "SELECT rowid FROM facts_fts WHERE facts_fts MATCH '\"payments\"' ORDER BY bm25(facts_fts), rowid LIMIT 50"
    )
    assert pos.tolist() == [r - 1 for (r,) in rows]


def same(a, b) -> None:
    assert np.array_equal(a.pos, b.pos) and np.array_equal(a.matched, b.matched)
    assert np.allclose(a.relevance, b.relevance, rtol=1e-12)
    assert all(np.array_equal(x, y) for x, y in zip(a.hits, b.hits, strict=True))


def test_kept_term_rows_follow_facts_appended_by_anyone(db, tmp_path):
    terms = ["payment*", "ledger", "zebra"]
    with Store.open(db) as store:
        same(store.search_any(terms), fresh(db, terms))  # read, then kept
        with Store.open(db) as other:  # another process appends
            more = facts(50, start=600, seed=1)
            more[7]["text"] += " zebra"
            import_facts(other, parse_file(write_jsonl(tmp_path / "b.jsonl", more)), "b")
        after = store.search_any(terms)
        same(after, fresh(db, terms))
        assert store.ids_at(after.hits[2].tolist()) == ["w00607"]
        # this connection's own write: inside it rows may roll back, so none are kept
        with pytest.raises(RuntimeError), store.transaction() as conn:
            conn.execute(
                "INSERT INTO facts (pos, id, text, created_at, created_ts, tier, r, s, events, sig_state)"
                " SELECT pos + 650, 'new' || id, text, created_at, created_ts, tier, r, s, events, 0"
                " FROM facts WHERE pos <= 20"
            )
            if not is_server(db):  # a file's word index is a table its writers fill
                conn.execute(
                    "INSERT INTO facts_fts (rowid, id, text) SELECT pos, id, text FROM facts WHERE pos > 650"
                )
            inside = store.search_any(terms)
            assert inside.pos[-1] >= 650
            raise RuntimeError("roll back")
        # another writer appends as many facts as rolled back: theirs are found, not those
        with Store.open(db) as other:
            more = facts(20, start=650, seed=2)
            more[3]["text"] = "zebra ledger"
            import_facts(other, parse_file(write_jsonl(tmp_path / "c.jsonl", more)), "c")
        after = store.search_any(terms)
        same(after, fresh(db, terms))
        assert store.ids_at(after.hits[2].tolist()) == ["w00607", "w00653"]


def test_kept_term_rows_are_dropped_when_the_index_is_rewritten(file_db):
    db = file_db
    terms = ["payments", "ledger"]
    with Store.open(db) as store:
        store.search_any(terms)
        with Store.open(db) as other, other.transaction() as conn:  # not what synapse-tui does
            conn.execute(
                "INSERT INTO facts_fts (facts_fts, rowid, id, text) SELECT 'delete', pos, id, text FROM facts"
                " WHERE pos <= 40"
            )
        store.words.doc_tokens = None  # token counts are kept on the same promise: here, only the rows
        same(store.search_any(terms), fresh(db, terms))
        assert store.search_any(terms).pos.min() >= 40
