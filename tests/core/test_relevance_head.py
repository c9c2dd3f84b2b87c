"""A page of ranked words (relevance.rank with a limit) is the head of the whole order:
the same facts, keys, ranks and reasons, on a store where most facts hold several of the
query's words, BM25 ties by the thousand (texts of three lengths), trust that buries
BM25's best, and versions whose newer text ranks far below the one it replaced."""

from __future__ import annotations

import numpy as np
import pytest

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review import query as fq
from synapse_tui.core.review import relevance
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl

NOW = parse_time("2026-12-01T00:00:00Z")
VOCAB = "payments api gateway ledger invoice owner team cache".split()
N = 2400
BURIED = 200  # BM25's first for `payments` (its shortest texts), disputed: trust buries them
DISPUTES = 2  # enough that trust buries them, not so many that any bound would do


def facts() -> list[dict]:
    rng = np.random.default_rng(7)
    out = []
    for i in range(N):
        if i < BURIED + 100:  # the buried, then the most trusted, all holding `payments`
            others = rng.choice(VOCAB[1:], 1 if i < BURIED else int(rng.integers(2, 4)), replace=False)
            words = ["payments", *others.tolist()]
        else:  # texts of three lengths (BM25 ties by the hundred), most with a function word
            words = rng.choice(VOCAB, int(rng.choice([3, 4, 6])), replace=False).tolist()
            words[-1] += " the" if i % 4 else " of the"
        f = {"id": f"h{i:05d}", "text": " ".join(words), "created_at": f"2026-{1 + i % 11:02d}-02T00:00:00Z"}
        if i < BURIED:
            f |= {"contradictions": DISPUTES, "created_at": "2026-11-02T00:00:00Z"}
        elif i < BURIED + 100:
            f |= {"corroborations": 5, "tier": "human", "created_at": "2026-11-02T00:00:00Z"}
        else:
            f |= {"corroborations": int(rng.integers(0, 5)), "tier": ["auto", "human"][i % 2]}
        if i % 10 in (8, 9) and i >= BURIED + 100:  # chains of three: i - 2 <- i - 1 <- i
            f["supersedes"] = f"h{i - 1:05d}"
            f["text"] = f"{words[0]} now " + "revised " * 12  # holds one word, and is long
        out.append(f)
    return out


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("head")
    with Store.open(tmp / "h.db", create=True) as s:
        import_facts(s, parse_file(write_jsonl(tmp / "h.jsonl", facts())), "h")
    store = Store.open(tmp / "h.db", readonly=True)
    yield Memory(store, Config(), NOW)
    store.close()


QUERIES = [
    ("payments", "trust"),  # one keyword: trust orders, BM25's first 200 are all buried
    ("payments api", "trust"),
    ("payments api gateway", "trust"),
    ("when did the payments api ship?", "trust"),  # function words, one in most facts
    ("payments of api", "trust"),  # ... and one in a few
    ("the gateway", "trust"),  # a function word in more facts than the keyword
    ("payments ledger invoice owner team", "trust"),
    ("payments api tier:human", "trust"),  # a filter
    ("payments api", "hybrid"),
    ("gateway", "hybrid"),
]
LIMITS = (1, 3, 10, 37, 100)


def pages(memory, query: str, mode: str, limit: int, mask=None):
    """The page `rank` gives with the limit, and the head of the whole order."""
    q = fq.parse(query)
    full = relevance.rank(memory, q, mask, mode)
    head = relevance.rank(memory, q, mask, mode, limit=limit)
    return full, full.pos[fq.order(full.score)[:limit]], head, fq.top(head.score, head.pos, limit)


def mismatch(memory, query: str, mode: str, limit: int, mask=None) -> str | None:
    full, want, head, got = pages(memory, query, mode, limit, mask)
    if got.tolist() != want.tolist():
        return f"{query!r} {mode} limit {limit}: page {got[:5].tolist()}..., not {want[:5].tolist()}..."
    i, j = np.searchsorted(full.pos, got), np.searchsorted(head.pos, got)
    for name in ("score", "bm25_rank", "lexical_rank", "every"):
        if not np.array_equal(getattr(full, name)[i], getattr(head, name)[j]):
            return f"{query!r} {mode} limit {limit}: {name} differs"
    if [full.reason(memory, a) for a in i] != [head.reason(memory, b) for b in j]:
        return f"{query!r} {mode} limit {limit}: reasons differ"
    if head.total != len(full.pos) or head.signals != full.signals:
        return f"{query!r} {mode} limit {limit}: total or signals differ"
    return None


@pytest.mark.parametrize(("query", "mode"), QUERIES)
def test_a_page_is_the_head_of_the_whole_order(memory, query, mode):
    for limit in LIMITS:
        assert mismatch(memory, query, mode, limit) is None
        _, _, head, _ = pages(memory, query, mode, limit)
        # ordered as a page, not as every match (a hundred of a thousand, buried deep,
        # may be proved only by ordering them all)
        assert len(head.pos) == limit or limit == 100


@pytest.mark.parametrize(("query", "mode"), QUERIES)
def test_holding_every_keyword_is_holding_every_word_but_function_words(memory, query, mode):
    full = relevance.rank(memory, fq.parse(query), None, mode)
    content = [h for t, h in zip(full.terms, full.hits, strict=True) if not relevance.is_stop(t)]
    held = sum(np.isin(full.pos, h).astype(int) for h in content)
    assert np.array_equal(full.every, held == len(content))


def test_a_page_inside_a_scope(memory):
    scope = np.zeros(len(memory), dtype=bool)
    scope[::3] = True
    for limit in LIMITS:
        assert mismatch(memory, "payments api", "trust", limit, scope) is None


def test_the_page_reaches_past_bm25s_first_and_lifts_from_outside(memory):
    """What makes the bound matter: a one-keyword page holds facts BM25 ranks past its
    first 200 (trust put them there), and a newer version is lifted onto a page from
    past them."""
    _, _, head, _ = pages(memory, "payments", "trust", 60)
    assert len(head.pos) == 60 and (head.bm25_rank > relevance.CANDIDATES).any()
    _, _, head, _ = pages(memory, "payments api gateway", "trust", 100)
    lifted = head.bm25_rank > 2 * 100
    assert lifted.any() and (memory.arrays.supersedes[head.pos[lifted]] >= 0).all()


def test_a_bound_too_tight_is_caught(memory, monkeypatch):
    """The comparison has teeth: with the bound on what lies outside BM25's first SIZE
    made 1% tighter than it is, some page is no longer the head of the whole order."""
    assert not any(mismatch(memory, "payments", "trust", limit) for limit in range(1, 101))
    outside = relevance._outside
    monkeypatch.setattr(relevance, "_outside", lambda size, *a: outside(size, *a) * 0.99)
    assert any(mismatch(memory, "payments", "trust", limit) for limit in range(1, 101))


def test_a_fact_just_outside_reaches_the_bound(memory):
    """The bound is reached: BM25's fact at SIZE + 1 for `payments` has the store's highest
    trust, so its key is the bound itself, and any tighter bound would leave out a fact
    that can reach a page."""
    full = relevance.rank(memory, fq.parse("payments"), None, "trust")
    size = relevance.CANDIDATES
    at = int(np.flatnonzero(full.bm25_rank == size + 1)[0])
    top = float(memory.scores.trust.max())
    assert memory.scores.trust[full.pos[at]] == top and full.lexical_rank[at] == 0
    k = relevance.RRF_K
    floor = 1.0 / (k + relevance.CANDIDATES + 1)
    lexical = np.where(full.lexical_rank > 0, 1.0 / (k + full.lexical_rank), floor)
    largest = (1.0 / (k + full.bm25_rank) + relevance.LEXICAL_WEIGHT * lexical).max()
    assert relevance._outside(size, largest, 1 - 1.0 + 1.0 * top, False) >= full.score[at]
