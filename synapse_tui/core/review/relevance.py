"""How a query's words rank facts (SPEC 6): any word may match, the best answer first.

An agent asks in questions (`When did Maria start at the climbing gym?`): requiring every
word found nothing for any of 1,536 benchmark questions (issue 27). So each word is cut to
its FTS5 tokens, stemmed to a prefix (`started` -> `start*`, `climbing` -> `climb*`), and
the facts holding any of them are ranked by fusing, by reciprocal rank (RRF), up to three
signals:

- `bm25`: BM25 over the prefixes (FTS5's idf and length normalisation, Store.search_any);
- `lexical`: the cosine of the graph's lexical vectors (character n-grams, graph/lexical.py)
  between the query and BM25's best CANDIDATES, which reorders them by shared word pieces;
- `semantic`: the cosine of sentence embeddings, only when the store's facts carry the
  embeddings of the model `embed` writes and the `[embed]` extra is installed.

Facts holding every word come first (so a person typing keywords in the browser still
sees a filter's answer on top), then the fused order; among facts about as relevant, the
trusted one comes first (TRUST_WEIGHT): a superseded or disputed fact is still returned,
it only yields its place to the current one. In a chat kept a turn a fact, the reply to a
question among the first facts ranks just after it (REPLIES, relevance_replies.py). Each
result can say why it ranks where it does (`reason`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from synapse_tui.core.base.errors import QueryError
from synapse_tui.core.review.relevance_replies import Replies, after_questions, replies
from synapse_tui.core.review.relevance_semantic import _ranks, _semantic, _semantic_ready
from synapse_tui.core.review.relevance_versions import lift, newer_first, suggested_first, versions
from synapse_tui.core.review.relevance_words import fts_terms, is_stop, names, time_span, tokens
from synapse_tui.core.trust.score import FLAG_DELETED, FLAG_EXPIRED, FLAG_INVALIDATED

if TYPE_CHECKING:
    from synapse_tui.core.review.memory import Memory
    from synapse_tui.core.review.query import Query
    from synapse_tui.core.store.db import WordHits

MODES = ("all", "bm25", "hybrid", "trust")  # the benchmark's ladder; "trust" is what callers get
RRF_K = 10  # reciprocal rank fusion's constant: 10 beat the usual 60 on the benchmark's questions
CANDIDATES = 200  # BM25's best that the lexical vectors reorder (embedding 200 texts: ~2 ms)
# the share of the fused score that trust may move: a fact as relevant as another but
# trusted ahead of it, never a barely relevant trusted fact ahead of the answer
TRUST_WEIGHT = 0.1
# the lexical vectors' say beside BM25's: on the benchmark's questions an equal say cost
# 0.15 of recall@1 for 0.01 of recall@10; a fifth keeps recall@1 and still lifts @5 and @10
LEXICAL_WEIGHT = 0.2
KEYWORDS_FIRST = True
SEMANTIC_WEIGHT = 1.0
SEMANTIC_SHARE = 0.0
GATE_WORDS = True
LEXICAL_WITH_SEMANTIC = False  # with embeddings: R@10 the same, R@1 -0.025 on the sample, 20% faster
# A name in the question (`Paylane`, `Andrew`) weighs like a name: its BM25 weight is
# doubled and the facts holding every name asked come before the rest (NAMES_FIRST), so a
# question about one vendor is answered by that vendor's facts, not by another vendor's
# that share more of the question's common words.
NAME_WEIGHT = 2.0
NAMES_FIRST = True
NAME_SHARE = 0.2  # a name held by more of the facts searched is a speaker's, not a subject's
SPEAKER_WEIGHT = 0.3
# Without embeddings, a fact holding a speaker's name the question asks (a name in more
# than NAME_SHARE of the facts searched) and no other word of it, nor a subject's name
# (`Jon: Bye!` for `Which cities has Jon visited?`) ranked high by its shortness alone:
# its fused relevance is set to WORDLESS, after every fact holding a word of the question
# (up to ~10,000 matches), where trust orders it (our conversations 0.448 -> 0.475 R@10,
# LoCoMo's dev part 0.676 -> 0.679). A share of its BM25 fusion (a fifth, a half, a
# thousandth) kept that order and moved nothing. None: off.
WORDLESS: float | None = 1e-4
# The question's time words (`last year`, `in May`, `in 2024`, `yesterday`) name a span of
# time; the facts created in it are raised by TIME_WEIGHT of the fused relevance (before
# the tiers), and the time words themselves weigh as function words: `May` is not a word
# of the answer, and `may` is mostly a verb.
TIME_WEIGHT = 0.5
# Function words: matched exactly and weighed STOP_WEIGHT, so `When did ... at the ...`
# ranks by what the question is about even in a small store, where `when` is as rare as
# `gym`; they still count, and a query of nothing else still finds what holds them.
STOP_WEIGHT = 0.01
# A reply ranks just after the question it answers, in a conversation kept a turn a fact
# (relevance_replies.py): LoCoMo's dev part 0.666 -> 0.757 R@10, our conversations 0.475 ->
# 0.480 (base install).
REPLIES = True


def check_words(q: Query, limit: int) -> None:
    n = len(tokens(q.words))
    if n > limit:
        raise QueryError(f"query has {n:,} words; at most {limit}", q.source[:40], 0, "")


@dataclass(frozen=True)
class Relevance:
    """The facts a query's words reach (ascending positions, filters applied) and their
    order key `score` (higher first), with what each signal said, for `reason`; or, when
    ranked with a limit, only the first `limit` of them, as the whole order has them."""

    pos: np.ndarray
    score: np.ndarray
    terms: tuple[str, ...]
    signals: tuple[str, ...]
    every: np.ndarray  # holds every term
    bm25_rank: np.ndarray  # 1-based
    lexical_rank: np.ndarray  # 1-based; 0: not a candidate
    semantic_rank: np.ndarray  # 1-based; 0: not reached
    hits: tuple[np.ndarray, ...]  # per term, the positions holding it (of `pos`, at least)
    total: int  # how many facts the words reach, passing the filters
    said: dict[int, str] = field(default_factory=dict)  # by position: a suggested replacement read

    def reason(self, memory: Memory, i: int) -> str:
        """Why the fact at `self.pos[i]` ranks where it does, in a line."""
        p = int(self.pos[i])
        held = [t.rstrip("*") for t, h in zip(self.terms, self.hits, strict=True) if _holds(h, p)]
        words = [t for t in held if not is_stop(t)] or held  # function words count for little
        extra = len(held) - len(words)
        named = ", ".join(words) + (f" +{extra} function word{'s' * (extra > 1)}" if extra else "")
        parts = [f"matches {len(held)} of {len(self.terms)} words ({named})" if held else "no word"]
        if self.every[i] and len(self.terms) > 1:
            parts[0] = f"matches every keyword ({named})"
        ranks = [f"bm25 #{self.bm25_rank[i]}"] if self.bm25_rank[i] else []
        if self.lexical_rank[i]:
            ranks.append(f"lexical #{self.lexical_rank[i]}")
        if self.semantic_rank[i]:
            ranks.append(f"semantic #{self.semantic_rank[i]}")
        parts.append(", ".join(ranks))
        if "trust" in self.signals:
            parts.append(f"trust {memory.scores.trust[p]:.2f} ({_state(memory, p)})")
        if p in self.said:
            parts.append(self.said[p])
        return "; ".join(part for part in parts if part)


def _state(memory: Memory, p: int) -> str:
    """What the fact at position p is, as a reason says it: its source's say first (a fact
    the source deleted is no current fact, whatever its trust), then its supersession."""
    flags = int(memory.scores.flags[p])
    for flag, said in _GONE:
        if flags & flag:
            return said
    return "superseded, ranked after the current version" if memory.scores.k[p] else "current"


_GONE = (
    (FLAG_DELETED, "deleted at its source"),
    (FLAG_EXPIRED, "expired at its source"),
    (FLAG_INVALIDATED, "invalid at its source"),
)


def _holds(hits: np.ndarray, p: int) -> bool:
    at = np.searchsorted(hits, p)
    return bool(at < len(hits) and hits[at] == p)


@dataclass
class _Reached:
    """What a query's words reach, before any order: the working state of `rank`."""

    terms: list[str]
    pos: np.ndarray
    relevance: np.ndarray
    hits: tuple[np.ndarray, ...]
    matched: np.ndarray  # per match, how many of the words that carry the question it holds
    terms_needed: int
    named: set[str] = field(default_factory=set)
    stop: list[bool] = field(default_factory=list)  # per term: weighs as a function word
    weights: list[float] = field(default_factory=list)
    span: tuple[float, float, frozenset[str]] | None = None
    inside: np.ndarray | None = None  # the facts searched (scope, filters); None: all
    rare: list[bool] = field(default_factory=list)  # per term: a name of few facts (a subject)

    def keep(self, keep: np.ndarray) -> None:
        self.pos, self.relevance, self.matched = self.pos[keep], self.relevance[keep], self.matched[keep]


def _reach(memory: Memory, q: Query, mode: str) -> _Reached:
    """The facts holding any of the words (every word in mode `all`), BM25-weighted."""
    words = q.words
    terms = fts_terms(words, mode)
    if mode == "all":  # the behaviour before issue 27: every word required
        pos, relevance = memory.store.search(" ".join(t.rstrip("*") for t in terms))
        return _Reached(
            terms, pos, relevance, tuple(pos for _ in terms), np.full(len(pos), len(terms)), len(terms)
        )
    span = time_span(words, memory.scores.now) if mode in ("hybrid", "trust") else None
    timed = set(fts_terms(sorted(span[2]), mode)) if span else set()
    named = set(fts_terms(names(words), mode)) if mode in ("hybrid", "trust") else set()
    stop = [is_stop(t) or t in timed for t in terms]
    weights = [
        STOP_WEIGHT if mode != "bm25" and weak else NAME_WEIGHT if t in named else 1.0
        for t, weak in zip(terms, stop, strict=True)
    ]
    found = memory.store.search_any(terms, weights)
    needed = stop.count(False) or len(terms)
    matched = _content_held(found, stop)  # of the words that carry the question
    return _Reached(
        terms, found.pos, found.relevance, found.hits, matched, needed, named, stop, weights, span
    )


def _scope(memory: Memory, q: Query, mask: np.ndarray | None, r: _Reached, mode: str) -> None:
    """Keep the matches the memory scores, passing the filters and `mask`; BM25's idf
    counted among the facts searched."""
    # the store's word index holds what another writer appended after this memory was
    # loaded (until it reloads): those facts have no scores here yet, so no rank either
    ahead = r.pos >= len(memory)
    if ahead.any():
        r.keep(~ahead)
    if not q.terms and mask is None:
        return
    inside = q.mask(memory) if q.terms else np.ones(len(memory), dtype=bool)
    if mask is not None:
        inside &= mask
    r.inside = inside
    r.keep(inside[r.pos])
    if mode not in ("all", "bm25") and len(r.pos):
        r.relevance = _scoped_idf(len(memory), inside, r.pos, r.relevance, r.hits, r.weights)


def rank(
    memory: Memory, q: Query, mask: np.ndarray | None = None, mode: str = "trust", limit: int | None = None
) -> Relevance:
    """Every fact the words reach, passing the filters (and `mask`), with its order key;
    with `limit`, the first `limit` of that order only (`_head`): the same facts with the
    same keys, for the cost of ordering the few that can reach them."""
    r = _reach(memory, q, mode)
    _scope(memory, q, mask, r, mode)
    terms, pos, hits, named = r.terms, r.pos, r.hits, r.named
    every = r.matched == r.terms_needed
    n = len(pos)
    first = mode in ("hybrid", "trust") and r.terms_needed > 1 and KEYWORDS_FIRST
    text = " ".join(q.words)
    rare, holds_names = _names_tier(memory, r)
    r.rare = rare
    # a name's tier or weight (a speaker's facts raised, facts holding names alone
    # lowered) and the time words' lift: _head's bounds know one tier and no other factor
    if not named and r.span is None and limit is not None and mode in ("hybrid", "trust"):
        page = _page(memory, r, every if first else None, text, mode == "trust", limit)
        if page is not None:
            return page
    tier = every.astype(np.float64) if first else np.zeros(n)
    if holds_names is not None:  # 0 no name, 1 every name, 2 every keyword (names included)
        tier = tier * 2 + (holds_names | (tier > 0))
    bm25_rank = _ranks(tier * 1e9 + r.relevance)
    if mode in ("all", "bm25"):
        none = np.zeros(n, dtype=np.int64)
        return Relevance(
            pos, r.relevance.copy(), tuple(terms), ("bm25",), every, bm25_rank, none, none, hits, n
        )
    common = [h for t, h, is_rare in zip(terms, hits, rare, strict=True) if t in named and not is_rare]
    fused, signals, lexical_rank, semantic_rank = _fused_signals(memory, r, text, bm25_rank, common)
    evidence: dict[int, str] = {}  # per position, the suggested replacement the ranking read
    if mode == "trust":
        subject = [t.rstrip("*") for t, is_rare in zip(terms, rare, strict=True) if is_rare]
        fused, evidence = _with_trust(memory, r, tier, fused, subject if holds_names is not None else [])
        signals.append("trust")
    score = tier * 2 + fused  # fused is at most 1: the tier always wins (but for a newer version)
    if REPLIES:  # a reply just after the question it answers (relevance_replies.py)
        score, read = _replies_read(memory, pos, score, r.inside)
        evidence.update(read)
    return Relevance(
        pos,
        score,
        tuple(terms),
        tuple(signals),
        every,
        bm25_rank,
        lexical_rank,
        semantic_rank,
        hits,
        n,
        evidence,
    )


def _names_tier(memory: Memory, r: _Reached) -> tuple[list[bool], np.ndarray | None]:
    """Per term, whether it is a name that picks out few of the facts searched (a subject,
    not a speaker); and which matches hold every such name, when they come first
    (NAMES_FIRST, some word besides the names asked), else None."""
    rare = [t in r.named and _rare(h, r.inside, len(memory)) for t, h in zip(r.terms, r.hits, strict=True)]
    holds = _holding(r.pos, [h for h, is_rare in zip(r.hits, rare, strict=True) if is_rare])
    if not (NAMES_FIRST and holds is not None and len(r.named) < r.terms_needed):
        holds = None
    return rare, holds


def _with_trust(
    memory: Memory, r: _Reached, tier: np.ndarray, fused: np.ndarray, subject: list[str]
) -> tuple[np.ndarray, dict[int, str]]:
    """`fused` moved by trust, each newer version just above what it replaced, and, when
    the question names its `subject`, suggest's evidence read (relevance_versions.py)."""
    fused = fused * _trusted(memory, r.pos, r.terms_needed)
    keyed = newer_first(memory, r.pos, tier * 2 + fused)
    evidence: dict[int, str] = {}
    if subject:
        held = [h for t, h in zip(r.terms, r.hits, strict=True) if t.rstrip("*") in subject]
        keyed, evidence = suggested_first(memory, r.pos, keyed, held, subject)
    return keyed - tier * 2, evidence


def _page(
    memory: Memory, r: _Reached, tiered: np.ndarray | None, text: str, trust: bool, limit: int
) -> Relevance | None:
    """The first `limit` of the order by `_head`, as a Relevance; None when every match
    must be ranked (too few, the embeddings in play, or no page proven)."""
    n = len(r.pos)
    if n <= limit or _semantic_ready(memory):
        return None
    head = _head(memory, text, r.pos, r.relevance, tiered, trust, r.terms_needed, int(limit))
    if head is None:
        return None
    at, score, bm25_rank, lexical_rank = head
    held = tuple(_among(h, r.pos[at]) for h in r.hits)
    none = np.zeros(len(at), dtype=np.int64)
    said: dict[int, str] = {}
    if REPLIES:
        asked = replies(memory, r.pos[at], score, r.inside)
        if _in(r.pos, asked.reply_pos[asked.reply < 0]).any():  # a reply the words reach,
            return None  # outside the page, would be raised into it: rank every match
        score, said = _replies_read(memory, r.pos[at], score, r.inside, asked)
    used = ("bm25", "lexical", "trust") if trust else ("bm25", "lexical")
    every = r.matched[at] == r.terms_needed
    return Relevance(
        r.pos[at], score, tuple(r.terms), used, every, bm25_rank, lexical_rank, none, held, n, said
    )


def _replies_read(
    memory: Memory,
    pos: np.ndarray,
    score: np.ndarray,
    inside: np.ndarray | None,
    asked: Replies | None = None,
) -> tuple[np.ndarray, dict[int, str]]:
    """`score` with each reply to a question among its first facts just after the question,
    and per position what the ranking read (relevance_replies.py); `asked`: the replies,
    when already found."""
    asked = replies(memory, pos, score, inside) if asked is None else asked
    if not len(asked.question):
        return score, {}
    ids = [memory.ids[p] for p in pos[asked.question].tolist()]
    score, said = after_questions(score, asked, ids)
    return score, {int(pos[i]): why for i, why in said.items()}


def _fused_signals(
    memory: Memory, r: _Reached, text: str, bm25_rank: np.ndarray, common: list[np.ndarray]
) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray]:
    """The relevance of every match before trust, at most 1: BM25 fused with the lexical
    vectors or the sentence embeddings, the speaker's own facts and the time words' span
    raised; with the signals used and the lexical and semantic ranks."""
    pos, n = r.pos, len(r.pos)
    signals = ["bm25"]
    lexical_rank = np.zeros(n, dtype=np.int64)
    semantic_rank = np.zeros(n, dtype=np.int64)
    fused = np.zeros(n)
    if n and LEXICAL_WITH_SEMANTIC or n and not _semantic_ready(memory):
        fused, lexical_rank = _fused(memory, text, pos, bm25_rank)
        signals.append("lexical")
        wordless = WORDLESS
        subjects = [h for h, is_rare in zip(r.hits, r.rare, strict=True) if is_rare]
        said = _holding_any(pos, _content_hits(r) + subjects) if wordless is not None else None
        if said is not None and wordless is not None:  # `Jon: Bye!`: a name asked, nothing else
            fused = np.where(said, fused, wordless)
    elif n:  # the embeddings say more than the lexical vectors, for less
        fused = 1.0 / (RRF_K + bm25_rank)
    sem = _semantic(memory, text, pos)
    if sem is not None:
        semantic_rank[:], cos = sem
        signals.append("semantic")
        fused = _with_semantic(r, fused, semantic_rank, cos)
    speaker = _holding(pos, common) if SPEAKER_WEIGHT else None
    if speaker is not None:  # the named person's own facts, before what others said of them
        fused *= 1.0 + SPEAKER_WEIGHT * speaker
    if r.span is not None:
        created = memory.arrays.created[pos]
        fused *= 1.0 + TIME_WEIGHT * ((created >= r.span[0]) & (created < r.span[1]))
        signals.append("time")
    fused /= fused.max(initial=0) or 1.0
    return fused, signals, lexical_rank, semantic_rank


def _content_hits(r: _Reached) -> list[np.ndarray]:
    """The hits of the question's words that are neither function words nor names."""
    return [h for t, h, weak in zip(r.terms, r.hits, r.stop, strict=True) if not weak and t not in r.named]


def _with_semantic(r: _Reached, fused: np.ndarray, semantic_rank: np.ndarray, cos: np.ndarray) -> np.ndarray:
    """The words' fusion with the embeddings' ranks (or cosines, SEMANTIC_SHARE) added."""
    if GATE_WORDS:
        # a fact holding none of the question's words but names and function words
        # ranks in BM25's order only by its length: the embeddings alone order it
        said = _holding_any(r.pos, _content_hits(r))
        if said is not None:
            fused = np.where(said, fused, 0.0)
    if SEMANTIC_SHARE:
        return (1 - SEMANTIC_SHARE) * fused / (fused.max(initial=0) or 1.0) + SEMANTIC_SHARE * cos
    return fused + np.where(semantic_rank > 0, SEMANTIC_WEIGHT / (RRF_K + semantic_rank), 0.0)


def _holding(pos: np.ndarray, hits: Sequence[np.ndarray]) -> np.ndarray | None:
    """Which of `pos` hold every one of the terms whose hits are given; None for no term."""
    if not hits:
        return None
    out = np.ones(len(pos), dtype=bool)
    for h in hits:
        out &= _in(h, pos)
    return out


def _rare(hits: np.ndarray, inside: np.ndarray | None, rows: int) -> bool:
    """Whether a name picks out few of the facts searched (NAME_SHARE at most): a vendor
    among many, not the user whose chats these are, who is in half of them."""
    hits = hits[hits < rows]
    held, among = (len(hits), rows) if inside is None else (np.count_nonzero(inside[hits]), inside.sum())
    return bool(held <= NAME_SHARE * max(int(among), 1))


def _holding_any(pos: np.ndarray, hits: Sequence[np.ndarray]) -> np.ndarray | None:
    """Which of `pos` hold any of the terms whose hits are given; None for no term."""
    if not hits:
        return None
    out = np.zeros(len(pos), dtype=bool)
    for h in hits:
        out |= _in(h, pos)
    return out


def _in(hits: np.ndarray, pos: np.ndarray) -> np.ndarray:
    if not len(hits):
        return np.zeros(len(pos), dtype=bool)
    at = np.minimum(np.searchsorted(hits, pos), len(hits) - 1)
    return hits[at] == pos


def _idf(n: np.ndarray | float, rows: np.ndarray | float) -> np.ndarray:
    return np.log1p((rows - n + 0.5) / (n + 0.5))  # Lucene's, as Store.search_any weighs


def _scoped_idf(
    rows: int,
    inside: np.ndarray,
    pos: np.ndarray,
    relevance: np.ndarray,
    hits: Sequence[np.ndarray],
    weights: Sequence[float],
) -> np.ndarray:
    """BM25 with each word's idf counted among the facts searched (the scope, the filters),
    not the whole store: a person's name is rare in a store of many people's chats but
    in half of their own, where it tells the answer from nothing. The store's BM25 is an
    idf sum times a length weight per fact; the weight is recovered and the sum redone."""
    n_in = int(inside.sum())
    if n_in == rows:
        return relevance
    held = np.array([_in(h, pos) for h in hits], dtype=bool).reshape(len(hits), len(pos))
    w = np.asarray(weights, dtype=np.float64)
    everywhere = w * _idf(np.array([len(h) for h in hits], dtype=np.float64), float(rows))
    here = w * _idf(np.array([np.count_nonzero(inside[h[h < rows]]) for h in hits], dtype=np.float64), n_in)
    before, after = everywhere @ held, here @ held
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(before > 0, after / before, 1.0)
    return relevance * ratio


def _content_held(found: WordHits, stop: list[bool]) -> np.ndarray:
    """Per match, how many of the terms that are not function words it holds: what the
    store counted, less the function words held, or the others counted afresh, whichever
    reads fewer rows (a function word may be in most facts, or in none)."""
    if not any(stop) or all(stop):
        return found.matched
    stops = [h for h, s in zip(found.hits, stop, strict=True) if s]
    others = [h for h, s in zip(found.hits, stop, strict=True) if not s]
    fewer = stops if sum(map(len, stops)) <= sum(map(len, others)) else others
    if not any(map(len, fewer)):
        return found.matched if fewer is stops else np.zeros(len(found.pos), dtype=np.int64)
    count = np.zeros(int(found.pos[-1]) + 1, dtype=np.int64)
    for h in fewer:
        count[h] += 1
    held = count[found.pos]
    return found.matched - held if fewer is stops else held


def _fused(
    memory: Memory, text: str, pos: np.ndarray, bm25_rank: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """BM25's and the lexical vectors' reciprocal ranks, fused, before any other signal,
    and the lexical ranks (0: not a candidate). `pos` must hold BM25's first CANDIDATES,
    ascending, so a subset of the matches that holds them fuses as all of them do."""
    fused = 1.0 / (RRF_K + bm25_rank)
    cand = np.flatnonzero(bm25_rank <= CANDIDATES)
    lexical_rank = np.zeros(len(pos), dtype=np.int64)
    lexical_rank[cand] = _ranks(_lexical_cosines(memory, text, pos[cand]))
    fused += LEXICAL_WEIGHT * np.where(
        lexical_rank > 0, 1.0 / (RRF_K + lexical_rank), 1.0 / (RRF_K + CANDIDATES + 1)
    )
    return fused, lexical_rank


def _trusted(memory: Memory, pos: np.ndarray, terms_needed: int) -> np.ndarray:
    """The factor trust puts on the fused relevance. One keyword: every match holds it, so
    all are about as relevant and trust orders them (relevance x freshness before,
    ADR-029); more: trust moves a tenth."""
    w = 1.0 if terms_needed == 1 else TRUST_WEIGHT
    return 1 - w + w * memory.scores.trust[pos]


def _head(
    memory: Memory,
    text: str,
    pos: np.ndarray,
    relevance: np.ndarray,
    tiered: np.ndarray | None,
    trust: bool,
    terms_needed: int,
    limit: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The first `limit` of `rank`'s order, from the SIZE matches first in BM25's order
    (SIZE from max(CANDIDATES, 2 limit), four times larger per try): their indices in
    `pos` (ascending), keys, BM25 and lexical ranks; None when no SIZE short of every
    match proves its page, and the caller ranks every match. `tiered`: the matches that
    hold every keyword, when those lead.

    Why nothing outside the SIZE can beat the page. Outside, a fact's BM25 rank r is above
    SIZE >= CANDIDATES, so it is no lexical candidate and, before the normalisation by the
    largest fusion M, fused 1/(K + r) + 0.2/(K + CANDIDATES + 1) <= BOUND, the same sum at
    r = SIZE + 1. M is the same over the SIZE as over all: rank 1 alone has more than
    BOUND at any SIZE, so the largest is in BM25's first CANDIDATES. Trust multiplies by
    1 - w + w trust <= the same at the store's highest trust, and the tier adds 2 only if
    more than SIZE matches hold every keyword (they lead BM25's order). Each step is one
    correctly rounded operation, monotone in its input, so the key before the lift is at
    most OUTSIDE, computed by the same operations from those bounds. The lift only raises
    a newer version to just above the version it replaced: run on lower bounds (a fact
    outside at -inf) and on upper bounds (outside at OUTSIDE), it brackets every lifted
    key, exactly wherever the two agree. The page stands when its `limit` facts are exact,
    every other fact of the SIZE or raised by the lift is exact or bracketed below the
    page's last key, and OUTSIDE is below it too: then the whole order starts with it."""
    n = len(pos)
    every = np.flatnonzero(tiered) if tiered is not None else None

    def tier(i: np.ndarray) -> np.ndarray:
        return np.zeros(len(i)) if tiered is None else tiered[i].astype(np.float64)

    w = 1.0 if terms_needed == 1 else TRUST_WEIGHT
    top_factor = 1 - w + w * float(memory.scores.trust.max(initial=0)) if trust else 1.0
    new, old = versions(memory, pos) if trust else (np.empty(0, np.int64),) * 2
    lexical = None  # the lexical ranks of BM25's first CANDIDATES: the same at any size
    size = max(CANDIDATES, 2 * limit)
    while size < n:
        sel = _bm25_first(relevance, every, size)
        bm25_rank = _ranks(tier(sel) * 1e9 + relevance[sel])
        if lexical is None:
            fused, lexical_rank = _fused(memory, text, pos[sel], bm25_rank)
            lexical = (pos[sel][lexical_rank > 0], lexical_rank[lexical_rank > 0])
        else:
            lexical_rank = np.zeros(size, dtype=np.int64)
            lexical_rank[np.searchsorted(pos[sel], lexical[0])] = lexical[1]
            fused = 1.0 / (RRF_K + bm25_rank) + LEXICAL_WEIGHT * np.where(
                lexical_rank > 0, 1.0 / (RRF_K + lexical_rank), 1.0 / (RRF_K + CANDIDATES + 1)
            )
        largest = fused.max()
        fused /= largest
        if trust:
            fused *= _trusted(memory, pos[sel], terms_needed)
        outside = _outside(size, largest, top_factor, every is not None and len(every) > size)
        below = tier(sel) * 2 + fused  # the key before the lift
        if len(new):  # bounds of every key after the lift, indexed as `pos`
            lo, hi = np.full(n, -np.inf), np.full(n, outside)
            lo[sel] = hi[sel] = below
            passes = int(memory.scores.k.max(initial=0)) + 1
            lo, hi = lift(lo, new, old, passes), lift(hi, new, old, passes)
            cand = np.union1d(sel, new)
            lo, hi = lo[cand], hi[cand]
        else:  # nothing to lift: the SIZE's keys are exact
            cand, lo, hi = sel, below, below
        best = np.lexsort((cand, -lo))
        page, rest = best[:limit], best[limit:]
        last = lo[page[-1]]
        vague = rest[lo[rest] != hi[rest]]
        if np.array_equal(lo[page], hi[page]) and outside < last and not (hi[vague] >= last).any():
            page = np.sort(page)  # `cand` ascends: so do the positions
            at = cand[page]
            score = tier(at) * 2 + (lo[page] - tier(at) * 2)  # as `rank` writes a lifted key
            inside = np.minimum(np.searchsorted(sel, at), size - 1)
            found = sel[inside] == at
            ranks = np.where(found, bm25_rank[inside], 0)
            lexical_at = np.where(found, lexical_rank[inside], 0)
            if not found.all():  # lifted from outside the SIZE: its BM25 rank, counted
                key = tier(np.arange(n)) * 1e9 + relevance
                for i in np.flatnonzero(~found):
                    k = key[at[i]]
                    ranks[i] = np.count_nonzero(key > k) + np.count_nonzero(key[: at[i]] == k) + 1
            return at, score, ranks, lexical_at
        size *= 4
    return None


def _outside(size: int, largest: float, top_factor: float, tiered: bool) -> float:
    """The highest key before the lift that a match outside BM25's first `size` can have
    (see `_head`), by the operations `rank` computes a key with."""
    fused = (1.0 / (RRF_K + size + 1) + LEXICAL_WEIGHT * (1.0 / (RRF_K + CANDIDATES + 1))) / largest
    return (1.0 if tiered else 0.0) * 2 + fused * top_factor


def _bm25_first(relevance: np.ndarray, every: np.ndarray | None, size: int) -> np.ndarray:
    """Indices (ascending) of the first `size` matches of BM25's order (key tier * 1e9 +
    relevance), those holding every keyword first when `every` names them: partitions of
    just those, or of the rest. Their key is computed as `rank` does: 1e9 + relevance
    rounds, so two relevances that differ by less than its last place tie."""
    if every is None:
        return _first(relevance, size)  # 0.0 * 1e9 + relevance is relevance
    if len(every) >= size:
        return every[_first(1.0 * 1e9 + relevance[every], size)]
    # all of `every`, then the others first by relevance: the others among the first
    # `size` by relevance alone are at least as many, and first among the others
    sel = _first(relevance, size)
    others = sel[np.searchsorted(every, sel, side="left") == np.searchsorted(every, sel, side="right")]
    others = others[np.lexsort((others, -relevance[others]))][: size - len(every)]
    return np.union1d(every, others)


def _first(values: np.ndarray, size: int) -> np.ndarray:
    """Indices (ascending) of the `size` highest values, ties in index order: the first
    `size` of a stable sort, selected by a partition rather than the sort."""
    if size >= len(values):
        return np.arange(len(values))
    cut = np.partition(values, len(values) - size)[len(values) - size]
    above = np.flatnonzero(values > cut)
    ties = np.flatnonzero(values == cut)[: size - above.size]
    return np.sort(np.concatenate([above, ties]))


def _among(hits: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Those of ascending `positions` that ascending `hits` holds."""
    at = np.minimum(np.searchsorted(hits, positions), max(len(hits) - 1, 0))
    return positions[hits[at] == positions] if len(hits) else hits


def _lexical_cosines(memory: Memory, text: str, positions: np.ndarray) -> np.ndarray:
    from synapse_tui.core.graph.lexical import embed_texts

    X = embed_texts(memory.store.texts(positions))
    return X @ embed_texts([text])[0]
