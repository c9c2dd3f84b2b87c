"""A reply read with its question (issue 43): in a chat kept a turn a fact, the answer to
`How long have Mel and her husband been married?` is the turn after Caroline asks it,
and holds only Melanie's name. It now ranks just after the question, within its own chat,
and a page of results is still the head of the whole order. A question's framing words
(`go`, `what kind of`) weigh as function words."""

from __future__ import annotations

import numpy as np
import pytest

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
ASKED = "How long have Mel and her husband been married?"
QUESTION = "Caroline: Wow, what an amazing family pic! How long have you been married?"
ANSWER = "Melanie: 5 years already! Time flies, feels like yesterday I put this dress on!"
CHATTER = (
    "Melanie: My husband and I took the kids camping, worth it",
    "Caroline: A friend of mine got married last spring by the lake",
    "Melanie: Thanks, Caroline!",
    "Caroline: The support group was so inspiring, I felt at home",
    "Melanie: Painting with the kids keeps me sane",
    "Caroline: Love that! We all need that",
)


def chat(user: str, at: str = "2026-05-08T13:56:", late: bool = False) -> list[dict]:
    """A chat of a turn a fact, a second between turns (`late`: the answer an hour after)."""
    turns = [CHATTER[i % len(CHATTER)] for i in range(30)]
    turns[12:14] = [QUESTION, ANSWER]
    out = []
    for i, text in enumerate(turns):
        stamp = f"{at}{i:02d}Z" if not (late and i >= 13) else f"2026-05-08T15:{i:02d}:00Z"
        out.append({"id": f"{user}{i:02d}", "text": text, "created_at": stamp, "provenance": {"user": user}})
    return out


def store(tmp_path, facts: list[dict]) -> Store:
    db = tmp_path / "chat.db"
    with Store.open(db, create=True) as s:
        import_facts(s, parse_file(write_jsonl(tmp_path / "f.jsonl", facts)), "f")
    return Store.open(db)


def test_the_answer_ranks_just_after_the_question_it_answers(tmp_path):
    with store(tmp_path, chat("a")) as s:
        rows = Recall(s, Config(), Clock(NOW)).search(ASKED, limit=5)["results"]
        ids = [r["id"] for r in rows]
        # before: the answer was BM25's 20th, after every turn holding a word asked
        assert "a13" in ids and ids.index("a13") == ids.index("a12") + 1, ids
        assert "replies to a12" in rows[ids.index("a13")]["rank_reason"]


def test_a_turn_an_hour_later_is_no_reply(tmp_path):
    with store(tmp_path, chat("a", late=True)) as s:
        ids = [r["id"] for r in Recall(s, Config(), Clock(NOW)).search(ASKED, limit=5)["results"]]
        assert "a13" not in ids and "a12" in ids


def test_the_reply_is_the_next_turn_of_the_same_chat(tmp_path):
    """Two chats interleaved a turn each: the fact after the question in the store is the
    other chat's; within a scope, the next turn of the same chat is the reply; unscoped,
    the answer two facts on is no reply."""
    a, b = chat("a"), chat("b")
    for f in b:
        f["text"] = f["text"].replace("married", "wed").replace("Melanie", "Maria")
    facts = [f for pair in zip(a, b, strict=True) for f in pair]
    with store(tmp_path, facts) as s:
        scoped = Recall(s, Config(), Clock(NOW), scope="prov:user=a").search(ASKED, limit=5)
        ids = [r["id"] for r in scoped["results"]]
        assert "a13" in ids and ids.index("a13") == ids.index("a12") + 1, ids
        assert all(i.startswith("a") for i in ids)
        whole = Recall(s, Config(), Clock(NOW)).search(ASKED, limit=5)["results"]
        assert not any("replies to a12" in r["rank_reason"] for r in whole if r["id"] == "a13")


def test_a_store_of_statements_ranks_as_before(tmp_path, monkeypatch):
    facts = chat("a")
    for f in facts:
        f["text"] = f["text"].replace("?", ".")
    with store(tmp_path, facts) as s:
        memory = Memory(s, Config(), NOW)
        q = fq.parse(ASKED)
        on = relevance.rank(memory, q)
        monkeypatch.setattr(relevance, "REPLIES", False)
        off = relevance.rank(memory, q)
        assert np.array_equal(on.score, off.score)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """Many facts holding the query's words, a fifth of them questions, no names: the
    page-only route (relevance._head) ranks these."""
    rng = np.random.default_rng(3)
    vocab = "payments api gateway ledger invoice owner team cache".split()
    facts = []
    for i in range(1500):
        words = rng.choice(vocab, int(rng.choice([2, 3, 5])), replace=False).tolist()
        text = " ".join(words) + ("?" if i % 5 == 0 else ".")
        facts.append(
            {"id": f"m{i:04d}", "text": text, "created_at": f"2026-03-01T10:{i // 60:02d}:{i % 60:02d}Z"}
        )
    tmp = tmp_path_factory.mktemp("mixed")
    with Store.open(tmp / "m.db", create=True) as s:
        import_facts(s, parse_file(write_jsonl(tmp / "m.jsonl", facts)), "m")
    s = Store.open(tmp / "m.db", readonly=True)
    yield Memory(s, Config(), NOW)
    s.close()


@pytest.mark.parametrize("query", ["payments", "payments api", "ledger owner cache", "the gateway team"])
def test_a_page_with_replies_is_the_head_of_the_whole_order(mixed, query):
    q = fq.parse(query)
    full = relevance.rank(mixed, q)
    raised = [p for p, why in full.said.items() if "replies to" in why]
    assert raised  # the rule is at work on this store
    for limit in (1, 3, 10, 37):
        page = relevance.rank(mixed, q, limit=limit)
        want = full.pos[fq.order(full.score)[:limit]]
        got = fq.top(page.score, page.pos, limit)
        assert got.tolist() == want.tolist()
        i, j = np.searchsorted(full.pos, got), np.searchsorted(page.pos, got)
        assert np.array_equal(full.score[i], page.score[j])
        assert [full.reason(mixed, a) for a in i] == [page.reason(mixed, b) for b in j]


def test_a_light_verb_asked_weighs_as_a_function_word(tmp_path):
    """`When did Melanie go camping?`: `go` frames the question; the turn about camping
    comes before a shorter one that only goes somewhere else."""
    turns = [
        "Melanie: I'm off to go swimming with the kids!",
        "Melanie: We spent the weekend camping by the lake, roasting marshmallows under the stars",
        *[f"Caroline: {t}" for t in ("Sounds lovely!", "How are the kids?", "Painting again today.")],
    ]
    facts = [
        {"id": f"c{i}", "text": t, "created_at": f"2026-05-0{1 + i}T10:00:00Z"} for i, t in enumerate(turns)
    ]
    with store(tmp_path, facts) as s:
        ids = [
            r["id"] for r in Recall(s, Config(), Clock(NOW)).search("When did Melanie go camping?")["results"]
        ]
        assert ids[0] == "c1", ids  # before: `go swimming`, shorter, first


def test_the_first_questions_are_the_orders_first_ties_in_position_order():
    from synapse_tui.core.review.relevance_replies import _first

    rng = np.random.default_rng(5)
    for n in (0, 1, 29, 30, 31, 500):
        key = rng.integers(0, 4, n).astype(np.float64)  # ties by the hundred
        pos = np.sort(rng.choice(10_000, n, replace=False))
        assert _first(pos, key, 30).tolist() == np.lexsort((pos, -key))[:30].tolist()
