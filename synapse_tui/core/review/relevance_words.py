"""A question's words as the ranking reads them (SPEC 6): FTS5 tokens, light stems,
function words, names and the span of time its time words name."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from synapse_tui.core.base.cjk import RUNS, has_cjk

# capitalised, yet time words rather than names: `in May` asks when, not who
MONTHS = "january february march april may june july august september october november december".split()
_NOT_NAMES = frozenset(
    MONTHS + "monday tuesday wednesday thursday friday saturday sunday today yesterday tomorrow".split()
)
_TOKEN = re.compile(r"[^\W_]+")  # FTS5 unicode61's token characters: letters and digits
CJK_PHRASE = 5  # a run of CJK this long is a phrase: its pairs are searched too (`cjk_pairs`)
MAX_TERMS = 64  # terms a search takes (query.MAX_WORDS; the ranking's bit sets hold 64)
_SUFFIXES = ("ingly", "ings", "ing", "edly", "ed", "ies", "ly", "es", "s")
# Function words: matched exactly; relevance.py weighs them STOP_WEIGHT.
STOP = frozenset(
    """a an the and or but nor of to in on at by for with from about as into onto over
    is are was were be been being am do does did done have has had having i me my mine we
    us our you your he him his she her it its they them their theirs what when where which
    who whom whose why how that this these those there here will would shall should can
    could may might must not no so if then than too very just any some all ever yet s t
    d ll m re ve""".split()
) | frozenset(
    # the words a question is framed with rather than about: light verbs (`did Melanie go
    # camping`, `what did John get`) and `what kind of`, `how does X describe`; a chat's
    # small talk is full of them (`I'm off to go swimming`). LoCoMo's dev part 0.757 ->
    # 0.768 R@10, our conversations 0.480 -> 0.484 (base install).
    """go goes going went gone get gets got getting make makes made making take takes took
    taken like say says said kind type sort thing things way describe mention mentioned
    think""".split()
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
    baseline the benchmark compares against). Ranking by relevance (`hybrid`, `trust`),
    a long run of CJK also gives its pairs of characters (`cjk_pairs`)."""
    if mode == "bm25":
        return tokens(words)
    out = (t if t in STOP else stem(t) + ("*" if len(stem(t)) >= 3 else "") for t in tokens(words))
    terms = list(dict.fromkeys(out))
    return cjk_pairs(terms) if mode in ("hybrid", "trust") else terms


def cjk_pairs(terms: list[str]) -> list[str]:
    """The terms, then each pair of characters of their CJK runs of CJK_PHRASE characters
    or more, once, up to MAX_TERMS terms in all. Such a run is a phrase or a question
    written without spaces (`チャートの表示方法は`), which no fact holds whole: its pairs are
    its words as far as a search can tell without a dictionary, so the facts sharing most
    of them rank first (a fact holding the whole run holds every pair: it comes first). A
    shorter run is a word, found wherever a fact holds it (store/cjk.py)."""
    out = dict.fromkeys(terms)
    for term in terms:
        for run in RUNS.findall(term.removesuffix("*")):
            if len(run) < CJK_PHRASE or not has_cjk(run):
                continue
            for i in range(len(run) - 1):
                if len(out) >= MAX_TERMS:
                    return list(out)
                out.setdefault(run[i : i + 2])
    return list(out)


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
