"""A question naming a person whose chat the store holds (issue 43): the name is in half
the facts, so it weighs as a speaker's, not a subject's. A fact holding that name and no
other word of the question (`Jon: Bye!`) no longer comes before the facts that hold one,
and a page of results is the head of the whole order, as without a name."""

from __future__ import annotations

import numpy as np

from synapse_tui.core.agent import Recall
from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review import query as fq
from synapse_tui.core.review import relevance
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl

NOW = parse_time("2026-12-01T00:00:00Z")
SHORT = ("Thanks!", "Bye!", "Agreed!", "Sure thing.", "Ha, true.", "Totally.", "Nice one.", "Cheers!")
SMALL = (
    "how was the weekend with the kids and the dog",
    "the weather turned cold again and the garden froze",
    "I finally finished the novel my sister lent me",
    "work has been hectic but the new manager helps",
)
VISITS = {
    "rome": "Jon: Took a short trip last week to Rome, we visited the old forum and ate far too much gelato",
    "aunt": "Gina: My aunt and uncle will visit the harbour museum with the whole family next spring",
}


def facts() -> list[dict]:
    out = []
    for i in range(48):
        text = f"Jon: {SHORT[i % len(SHORT)]}" if i % 2 else f"Gina: {SMALL[i % len(SMALL)]}"
        out.append({"id": f"t{i:02d}", "text": text, "created_at": f"2026-03-{1 + i % 28:02d}T10:00:00Z"})
    out += [{"id": k, "text": v, "created_at": "2026-04-02T10:00:00Z"} for k, v in VISITS.items()]
    return out


def test_a_speakers_name_alone_ranks_after_the_facts_holding_a_word_asked(tmp_path):
    db = tmp_path / "chat.db"
    with Store.open(db, create=True) as s:
        import_facts(s, parse_file(write_jsonl(tmp_path / "f.jsonl", facts())), "f")
    with Store.open(db) as store:
        out = Recall(store, Config(), Clock(NOW)).search("Which cities has Jon visited?", limit=5)
        ids = [r["id"] for r in out["results"]]
        assert set(ids[:2]) == set(VISITS), ids  # before: `Jon: Thanks!` and the like first
        assert all(r["relevance"] > 0 for r in out["results"])  # still found, only later
        memory = Memory(store, Config(), NOW)
        q = fq.parse("Which cities has Jon visited?")
        full = relevance.rank(memory, q)
        for limit in (1, 3, 10):
            page = relevance.rank(memory, q, limit=limit)
            head = full.pos[fq.order(full.score)][:limit]
            assert np.array_equal(page.pos[fq.order(page.score)][:limit], head)
