"""The filter language shared by `score --where`, the browser's search box and MCP `search`.

    trust<0.3 fresh<0.5 u>=0.5 d>0.25 tier:auto k>=1 flag:signature_invalid
    guidance:disputed band:very-low -tier:signed junk:near-duplicate payments api
    prov:x-mem0-user-id=alice note:note-2024-12-02 When did Maria start at the gym?

Filter terms restrict and are ANDed; a leading `-` negates one; a value holding a space is
quoted, `note:"My Notes.md"`, `prov:x-source="my app"` (no `"` inside); a note that is a
path is found by its last parts too (`note:CLAUDE.md` finds `packages/api/CLAUDE.md`). A token shaped like
a filter term (a letter-initial name, an operator or `:`, a non-empty value) whose name is
no field is a typo: QueryError pointing at it. Every other token is a word, punctuation
and all; words rank the facts matching any of them (review/relevance.py).

An agent asks questions, not filters (`Which tournaments besides CS:GO?`): `parse(...,
lenient=True)` (MCP) reads a token whose name is no field as words instead, and the
query says which (`Query.as_words`). A known field with a bad value is still refused.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from synapse_tui.core.base.errors import QueryError
from synapse_tui.core.review.relevance import Relevance, check_words, rank
from synapse_tui.core.review.relevance_words import tokens
from synapse_tui.core.trust.row import LABELS, NUMBERS
from synapse_tui.core.trust.score import FLAG_DELETED, FLAG_EXPIRED, FLAG_INVALIDATED, FLAG_NAMES

if TYPE_CHECKING:
    from synapse_tui.core.review.memory import Memory
    from synapse_tui.core.store.api import Store

# the score fields a query spells short (the row's names are aliases): `fresh<0.5`
SHORT = {"freshness": "fresh", "supersession": "sup"}


def _score(name: str) -> Callable[[Memory], np.ndarray]:
    return lambda m: getattr(m.scores, name)


# field name -> how to get the array from a Memory: every number of the score row, then inputs
NUMERIC: dict[str, Callable[[Memory], np.ndarray]] = {SHORT.get(name, name): _score(name) for name in NUMBERS}
NUMERIC |= {
    "r": lambda m: m.arrays.r,
    "s": lambda m: m.arrays.s,
    "age": lambda m: m.scores.age_days,
}
ALIASES = {
    "conf": "confidence",
    **{long: short for long, short in SHORT.items()},
    "depth": "k",
    "activation": "B",
}
# the score row's coded fields (band, guidance, tier) take its labels, a space written '-'
KEYED = {name: tuple(label.replace(" ", "-") for label in labels) for name, labels in LABELS.items()}
KEYED |= {
    "flag": tuple(name for _, name in FLAG_NAMES),
    "is": ("stale", "superseded", "head", "o1", "signed", "deleted", "invalidated", "expired", "suggested"),
    "junk": ("duplicate", "near-duplicate", "unsupported", "any"),
}
# keys whose value is kept verbatim (case and all): `prov:KEY=VALUE`, `note:ID`
VERBATIM = ("prov", "note")
# A query is typed or sent by an agent; past these it is refused before any work, so one
# call cannot hold the server (issue 22: 200,000 words held it 10 s in FTS5). 64 distinct
# words is several questions' worth; 10,000 characters is a page.
MAX_WORDS = 64
MAX_QUERY_CHARS = 10_000
# C0/C1 controls (tab, newline and carriage return are whitespace), lone surrogates
_BAD_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_OPS = {
    "<=": np.less_equal,
    ">=": np.greater_equal,
    "!=": np.not_equal,
    "<": np.less,
    ">": np.greater,
    "=": np.equal,
}
# a query's tokens: runs of non-space, but a filter's quoted value (`note:"My Notes.md"`,
# `prov:KEY="a b"`) is one token, spaces and all
_TOKEN = re.compile(r'-?[A-Za-z_]+:(?:[^\s"=]+=)?"[^"\n]*"(?=\s|$)|\S+')
_COMPARE = re.compile(r"^([A-Za-z_]+)(<=|>=|!=|<|>|=)(.+)$")
_KEYED = re.compile(r"^([A-Za-z_]+):(.+)$")
# a comparison missing its field (`<0.3`): a typo, not a word; a bare `=` or `<3` is a word
_FIELDLESS = re.compile(r"^(<=|>=|!=|<|>|=)[-+]?(\d*\.)?\d+$")
# a filter's name and operator with nothing after (`trust<`, `tier:`): a word, half a filter
_VALUELESS = re.compile(r"^-?([A-Za-z_]+)(<=|>=|!=|<|>|=|:)$")


@dataclass(frozen=True)
class Term:
    text: str
    negate: bool
    test: Callable[[Memory], np.ndarray]


@dataclass(frozen=True)
class Query:
    source: str
    terms: tuple[Term, ...] = ()
    words: tuple[str, ...] = field(default=())
    as_words: tuple[str, ...] = ()  # filter-shaped tokens naming no field, read as words (lenient)

    @property
    def empty(self) -> bool:
        return not self.terms and not self.words

    def mask(self, memory: Memory) -> np.ndarray:
        """Facts that pass every comparison and key term (words not applied)."""
        keep = np.ones(len(memory), dtype=bool)
        for term in self.terms:
            hit = term.test(memory)
            keep &= ~hit if term.negate else hit
        return keep


def _suggest(word: str, options: list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def parse(source: str, lenient: bool = False) -> Query:
    """The query's filter terms and words; `lenient`: a filter-shaped token whose name is
    no field (or that has no name, `<0.3`) is words, not a typo."""
    check_source(source)
    terms: list[Term] = []
    words: list[str] = []
    as_words: list[str] = []
    for match in _TOKEN.finditer(source):
        token, pos = match.group(0), match.start()
        negate = token.startswith("-") and len(token) > 1
        body = token[1:] if negate else token
        cmp_match = _COMPARE.match(body)
        key_match = _KEYED.match(body)
        fieldless = _FIELDLESS.match(body)
        if lenient and (fieldless or _unknown_name(cmp_match, key_match)):
            words.append(token)
            as_words.append(token)
            continue
        if fieldless:
            raise QueryError(
                f"'{fieldless.group(1)}' needs a field before it, e.g. trust<0.3", source, pos, token
            )
        if key_match and _known(key_match.group(1)):
            _check_quotes(source, pos, token, *key_match.groups())
        if key_match and key_match.group(1).lower() in VERBATIM:
            terms.append(_verbatim(source, pos, token, negate, *key_match.groups()))
        elif cmp_match:
            terms.append(_comparison(source, pos, token, negate, *cmp_match.groups()))
        elif key_match and not key_match.group(1).lower().startswith("http"):  # a URL is a word
            terms.append(_keyed(source, pos, token, negate, *key_match.groups()))
        else:
            words.append(token)
    return Query(source, tuple(terms), tuple(words), tuple(as_words))


def hints(q: Query) -> list[str]:
    """How a query was read where a person may have meant otherwise; nothing is refused (a
    filter term needs a value: SPEC 6). A known filter's name and operator with nothing
    after (`trust<`, `tier:`, half typed or spaced `tier: auto`) is read as a word; words
    with no letter or digit (`((((`, `-`) find nothing."""
    said = []
    for word in q.words:
        valueless = _VALUELESS.match(word)
        needs = _needs_value(*valueless.groups()) if valueless else None
        if needs:
            said.append(f"'{word}' is read as a word: {needs}")
    if q.words and not tokens(q.words):
        said.append("words with no letter or digit find nothing")
    return said


def _needs_value(name: str, op: str) -> str | None:
    """What a known filter needs after its operator (`trust<` a number), or None for a
    name that is no field (`Hint:`)."""
    key = name.lower()
    if op == ":" and key in KEYED:
        return f"the filter takes one of {', '.join(KEYED[key])}, with no space after the colon ({key}:{KEYED[key][0]})"
    if op == ":" and key in VERBATIM:
        example = "prov:x-mem0-user-id=alice" if key == "prov" else 'note:"My Notes.md"'
        return f"the filter needs a value, e.g. {example}"
    field = ALIASES.get(name, name)
    if op != ":" and (field in NUMERIC or (field.lower() in NUMERIC and field.lower() != "b")):
        return f"the filter needs a number after it, e.g. {name}{op}0.5"
    return None


def _known(name: str) -> bool:
    return name.lower() in VERBATIM or name.lower() in KEYED


def _unquote(value: str) -> str:
    """A filter's value without the quotes around it (`"My Notes.md"`), if it has them."""
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value


def _check_quotes(source: str, pos: int, token: str, name: str, value: str) -> None:
    """Refuse a known filter's value that opens a quote and does not close it (the quote
    would otherwise be taken as part of the value, and match nothing)."""
    inner = value.partition("=")[2] if name.lower() == "prov" and not value.startswith('"') else value
    if inner.startswith('"') and (len(inner) < 2 or not inner.endswith('"')):
        raise QueryError(
            f"'{name}:' opens a quote it does not close, e.g. {name}:\"My Notes.md\"", source, pos, token
        )


def _unknown_name(cmp_match: re.Match[str] | None, key_match: re.Match[str] | None) -> bool:
    """Whether a filter-shaped token names no field (what `parse` would refuse as a typo
    for its name; a known name with a bad value is not this)."""
    if key_match and key_match.group(1).lower() in VERBATIM:
        return False
    if cmp_match:
        name = cmp_match.group(1)
        key = ALIASES.get(name, name)
        return key not in NUMERIC and not (key.lower() in NUMERIC and key.lower() != "b")
    if key_match and not key_match.group(1).lower().startswith("http"):
        return key_match.group(1).lower() not in KEYED
    return False


def check_source(source: str) -> None:
    """Refuse what no query holds before looking at it: a control character (a NUL is a
    bad argument, not a damaged store), more than MAX_WORDS distinct words (repeats count
    once) or a length past MAX_QUERY_CHARS."""
    bad = _BAD_CHAR.search(source)
    if bad:
        raise QueryError(
            f"a query holds no control character; found U+{ord(bad.group(0)):04X}", _excerpt(source), 0, ""
        )
    distinct = len(set(source.split()))  # before any parsing: 200,000 words cost 30 ms here
    if distinct > MAX_WORDS:
        raise QueryError(f"query has {distinct:,} words; at most {MAX_WORDS}", _excerpt(source), 0, "")
    if len(source) > MAX_QUERY_CHARS:
        raise QueryError(
            f"query is {len(source):,} characters long; at most {MAX_QUERY_CHARS:,}", _excerpt(source), 0, ""
        )


def _excerpt(source: str) -> str:
    """The start of a refused query, one printable line, for the message."""
    head = _BAD_CHAR.sub("?", source[:40])
    return " ".join(head.split()) + ("..." if len(source) > 40 else "")


def _verbatim(source: str, pos: int, token: str, negate: bool, name: str, value: str) -> Term:
    """`prov:KEY=VALUE` (the facts whose provenance KEY equals VALUE) and `note:ID`."""
    key = name.lower()
    if key == "note":
        note = _unquote(value)
        return Term(token, negate, _cached(lambda store, start: store.note_positions(note, start)))
    prov_key, eq, prov_value = _unquote(value).partition("=")
    prov_value = _unquote(prov_value)
    if not eq or not prov_key:
        raise QueryError("'prov:' takes KEY=VALUE, e.g. prov:x-mem0-user-id=alice", source, pos, token)
    return Term(
        token, negate, _cached(lambda store, start: store.provenance_positions(prov_key, prov_value, start))
    )


def _cached(read: Callable[[Store, int], np.ndarray]) -> Callable[[Memory], np.ndarray]:
    """A mask from the store, read once and then only for facts appended since: a fact's
    note and provenance never change after import, so a scoped server pays the scan
    (tens of ms at 100,000 facts) once, not per call."""
    held: dict[int, tuple[int, np.ndarray]] = {}

    def test(memory: Memory) -> np.ndarray:
        n = len(memory)
        start, found = held.get(id(memory.store), (0, np.empty(0, np.int64)))
        if start > n:  # a different store under the same object id
            start, found = 0, np.empty(0, np.int64)
        if start < n:
            found = np.concatenate([found, read(memory.store, start)])
            held[id(memory.store)] = (n, found)
        mask = np.zeros(n, dtype=bool)
        mask[found[found < n]] = True
        return mask

    return test


def _comparison(source: str, pos: int, token: str, negate: bool, name: str, op: str, value: str) -> Term:
    key = ALIASES.get(name, name)
    if key not in NUMERIC and key.lower() in NUMERIC and key.lower() not in ("b",):
        key = key.lower()
    if key not in NUMERIC:
        options = list(NUMERIC) + list(ALIASES)
        raise QueryError(f"unknown field '{name}'{_suggest(name, options)}", source, pos, token)
    try:
        number = float(value)
    except ValueError:
        raise QueryError(f"'{name}{op}' needs a number, got '{value}'", source, pos, token) from None
    if not math.isfinite(number):  # NaN compares false with everything: an empty answer
        raise QueryError(f"'{name}{op}' needs a finite number, got '{value}'", source, pos, token)
    getter, fn = NUMERIC[key], _OPS[op]
    return Term(token, negate, lambda m: fn(getter(m), number))


def _label_is(name: str, index: int) -> Callable[[Memory], np.ndarray]:
    """The mask of the facts whose score label `name` (band, tier...) is the `index`th."""
    return lambda m: getattr(m.scores, name) == index


def _keyed(source: str, pos: int, token: str, negate: bool, name: str, value: str) -> Term:
    key = name.lower()
    if key not in KEYED:
        raise QueryError(f"unknown filter '{name}:'{_suggest(key, list(KEYED))}", source, pos, token)
    options = KEYED[key]
    value = _unquote(value)
    value = value.lower().replace("_", "-") if key == "band" else value.lower()
    if value not in options:
        raise QueryError(
            f"'{name}:' takes one of {', '.join(options)}{_suggest(value, list(options))}", source, pos, token
        )
    index = options.index(value)
    tests: dict[str, Callable[[Memory], np.ndarray]] = {name: _label_is(name, index) for name in LABELS}
    tests["flag"] = lambda m: (m.scores.flags & FLAG_NAMES[index][0]) != 0
    if key == "is":
        tests["is"] = {
            "stale": lambda m: m.scores.freshness < m.config.review.threshold,
            "superseded": lambda m: m.scores.k > 0,
            "head": lambda m: m.scores.k == 0,
            "o1": lambda m: m.arrays.o1_count > 0,
            "signed": lambda m: m.scores.tier == 2,
            "deleted": lambda m: (m.scores.flags & FLAG_DELETED) != 0,
            "invalidated": lambda m: (m.scores.flags & FLAG_INVALIDATED) != 0,
            "expired": lambda m: (m.scores.flags & FLAG_EXPIRED) != 0,
            "suggested": _suggested,
        }[value]
    if key == "junk":
        tests["junk"] = lambda m: junk_mask(m, value)
    return Term(token, negate, tests[key])


def _suggested(memory: Memory) -> np.ndarray:
    """Facts a standing suggestion flags (SPEC 13): found on first use, kept on the memory."""
    from synapse_tui.core.review.suggestions import suggested_mask

    return suggested_mask(memory)


def junk_mask(memory: Memory, kind: str) -> np.ndarray:
    """Facts the junk detectors flag: exact duplicates, near-duplicate clusters (from the
    stored semantic edges), unsupported claims (auto, r = 0, older than configured)."""
    from synapse_tui.core.review import junk

    store, cfg = memory.store, memory.config
    found: list[str] = []
    if kind in ("duplicate", "any"):
        found += [fid for group in junk.exact_duplicates(store) for fid in group]
    if kind in ("near-duplicate", "any"):
        found += [fid for group in junk.near_duplicate_clusters(store, cfg) for fid in group]
    mask = np.zeros(len(memory), dtype=bool)
    mask[[memory.index[fid] for fid in found if fid in memory.index]] = True
    if kind in ("unsupported", "any"):
        mask |= junk.unsupported_mask(memory.arrays, cfg, memory.scores.now)
    return mask


def ranked(memory: Memory, q: Query, mask: np.ndarray | None = None, limit: int | None = None) -> Relevance:
    """The facts a query's words reach, passing its filters (and `mask`), with their order
    key, or only the first `limit` of them: see review/relevance.py. Refuses more than
    MAX_WORDS distinct words."""
    check_words(q, MAX_WORDS)
    return rank(memory, q, mask, limit=limit)


def run(memory: Memory, query: Query | str) -> np.ndarray:
    """Positions that match: with words, those reaching any word, best first (facts
    holding every word first, then by relevance, the trusted first among equals);
    otherwise the filters' matches in store order."""
    q = parse(query) if isinstance(query, str) else query
    if not q.words:
        return np.flatnonzero(q.mask(memory))
    found = ranked(memory, q)
    return found.pos[order(found.score)]


def order(values: np.ndarray) -> np.ndarray:
    """Indices that sort `values` highest first, ties in index order: what a stable sort
    gives, at the price of an unstable one (half, for a quarter of a million) plus a
    stable sort of just the tied entries."""
    idx = np.argsort(-values)
    ranked_values = values[idx]
    tied = np.zeros(len(idx), dtype=bool)
    same = ranked_values[1:] == ranked_values[:-1]
    tied[1:] |= same
    tied[:-1] |= same
    if tied.any():  # tied runs are contiguous: order each by index, in place
        sub = idx[tied]
        idx[tied] = sub[np.lexsort((sub, -ranked_values[tied]))]
    return idx


def top(values: np.ndarray, positions: np.ndarray, limit: int) -> np.ndarray:
    """The `limit` positions of highest value, best first, ties in the order given (store
    order when `positions` ascend): selecting before sorting, so a page of results from a
    hundred thousand matches costs a partition, not a sort."""
    if len(values) > limit:
        cut = np.partition(values, len(values) - limit)[len(values) - limit]  # limit-th highest
        above = values > cut
        ties = np.flatnonzero(values == cut)[: limit - int(above.sum())]
        keep = np.sort(np.concatenate([np.flatnonzero(above), ties]))
        positions, values = positions[keep], values[keep]
    return positions[order(values)]
