"""Word search over the store's FTS5 index: which facts hold each word, and their BM25.

Relevance is BM25 with FTS5's constants, computed in numpy over the matched rowids instead
of by FTS5's per-row bm25(): that auxiliary function walks each match's position lists and
looks up its size, 5 us a row (1.3 s for a word in a quarter of a million facts). What
ranks matches is each term's idf and the length normalisation: each row's token count
from FTS5's docsize table against the average from its averages record, as bm25() reads
them. A word's count within one fact is taken as 1 (facts are short statements): the one
place the order can differ from bm25()'s.

A broad word costs its doclist: FTS5 decodes a quarter of a million rowids for a word in a
quarter of a million-fact store (60-110 ms on a busy machine, most of an agent's search).
So each term's rowids are kept once read (`TermCache`), as the rows' token counts are:
facts are only ever appended to the index, never rewritten or removed, so a term's rows
once read stay its rows, and a later search reads only the rows appended since (a rowid
range FTS5 answers from the end of its doclist). Should the index change otherwise (its
row count no longer adds up), everything kept is dropped.

`WordIndex` owns all of it for one FTS5 table: the rows' token counts, the term cache and
the searches. A file's store holds one over its own table (`store.words`); a server's holds
one over the copy of its facts this process keeps (postgres/words.py's `Mirror`).
"""

from __future__ import annotations

import json
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager

import numpy as np

from synapse_tui.core.base.cjk import has_cjk
from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.store import cjk
from synapse_tui.core.store.ops import WordHits

BM25_K1 = 1.2
BM25_B = 0.75
# rowids kept over all cached terms (int32: 32 MB): every word of a million-fact store's
# quarter-broad vocabulary, or the commonest few dozen of a real one
CACHE_ROWIDS = 8_000_000
_MATCH = "SELECT group_concat(rowid, ',') FROM facts_fts WHERE facts_fts MATCH ?"


class TermCache:
    """Per term (its MATCH string), the rowids holding it and the index's last rowid when
    they were read, least recently used first; and the index's last rowid and row count
    when the cache last checked that nothing but appends happened since."""

    def __init__(self, limit: int = CACHE_ROWIDS) -> None:
        self.limit = limit
        self.terms: OrderedDict[str, tuple[int, np.ndarray]] = OrderedDict()
        self.upto = 0
        self.rows = 0
        self.size = 0
        self.weight: np.ndarray | None = None  # BM25's length weight by rowid (`_weights`)
        self.weight_key: tuple | None = None
        self.side: str | None = None  # the CJK table's state last seen (`_side`)
        self.side_at = -1  # the index's last rowid then

    def clear(self) -> None:
        self.terms.clear()
        self.upto = self.rows = self.size = 0
        self.weight = self.weight_key = self.side = None
        self.side_at = -1

    def put(self, match: str, upto: int, hits: np.ndarray) -> None:
        old = self.terms.pop(match, None)
        self.size -= 0 if old is None else old[1].size
        if hits.size > self.limit:
            return
        self.terms[match] = (upto, hits.astype(np.int32) if hits.size and hits[-1] < 2**31 else hits)
        self.size += hits.size
        while self.size > self.limit:
            _, (_, dropped) = self.terms.popitem(last=False)
            self.size -= dropped.size


class WordIndex:
    """One FTS5 table (`facts_fts`, rowid = position + 1) on a SQLite connection, with
    what its searches keep: each row's token count (`doc_tokens`, once read whole) and each
    term's rows (`terms`). `snapshot` gives the connection inside one read transaction (a
    file's store: its own; by default one of the index's); `where` names it in an error."""

    FTS_COLUMNS = 2  # facts_fts: id, text (docsize holds one varint per column per row)

    def __init__(
        self,
        conn: sqlite3.Connection,
        where: str,
        snapshot: Callable[[], AbstractContextManager[sqlite3.Connection]] | None = None,
    ) -> None:
        self.conn = conn
        self.where = where
        self.snapshot = snapshot if snapshot is not None else lambda: _read_transaction(conn)
        self.doc_tokens: np.ndarray | None = None  # tokens per FTS row by rowid, once read whole
        self.terms = TermCache()

    def search(self, query: str, limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Facts holding every word (each a prefix): see `search`."""
        return search(self, query, limit)

    def search_any(self, terms: Sequence[str], weights: Sequence[float] | None = None) -> WordHits:
        """Facts holding any of the terms, with their BM25: see `search_any`."""
        return search_any(self, terms, weights)

    def prepare(self) -> None:
        """Read every row's token count now (0.15 s at a million facts), so that the first
        broad search of a long-running process does not: for a server or a browser to call
        once the store is open and the first answer or paint is out."""
        with self.snapshot() as conn:
            (last,) = conn.execute("SELECT max(id) FROM facts_fts_docsize").fetchone()
            if last is not None:
                self.row_tokens(conn, np.array([last], dtype=np.int64), keep=True, whole=True)

    def row_tokens(
        self, conn: sqlite3.Connection, rowids: np.ndarray, keep: bool, whole: bool = False
    ) -> np.ndarray:
        """Token counts of FTS rows (ascending rowids), from the docsize table. A search
        matching few of the rows not read yet reads just its own (1.5 us a row); one
        matching many reads all the rest in one aggregate (0.15 s at a million) and keeps
        them, so later searches read only rows appended since: facts are never rewritten
        or removed, so a count once read stays true. `keep` False (inside a write): keep
        nothing; `whole`: read all the rest whatever the matches."""
        have = self.doc_tokens
        start = 0 if have is None else len(have)
        unread = rowids[rowids >= start]
        if not len(unread):
            return have[rowids] if have is not None else np.empty(0, np.int64)
        (last,) = conn.execute("SELECT max(id) FROM facts_fts_docsize").fetchone()
        factory = conn.text_factory
        conn.text_factory = bytes
        try:
            if not whole and len(unread) <= 20_000 and 20 * len(unread) < (last or 0) - start:
                found = dict(
                    conn.execute(
                        "SELECT id, sz FROM facts_fts_docsize WHERE id IN (SELECT value FROM json_each(?))",
                        (json.dumps(unread.tolist()),),
                    )
                )
                counts = self._varint_rows(b"".join(found.get(r, b"") for r in unread.tolist()), len(unread))
                if have is None:
                    return counts
                out = np.empty(len(rowids), dtype=np.int64)
                old = len(rowids) - len(unread)  # rowids ascend: the read ones come first
                out[:old], out[old:] = have[rowids[:old]], counts
                return out
            (blob,) = conn.execute(
                "SELECT group_concat(sz, x'') FROM facts_fts_docsize WHERE id >= ?", (start,)
            ).fetchone()
            data = blob or b""
            n = len(_varint_ends(data)) // self.FTS_COLUMNS
            (first,) = conn.execute(
                "SELECT min(id) FROM facts_fts_docsize WHERE id >= ?", (start,)
            ).fetchone()
            if n and last - first + 1 == n:
                ids = np.arange(first, last + 1, dtype=np.int64)
            else:  # gaps (never made by synapse-tui): read the ids too
                (joined,) = conn.execute(
                    "SELECT group_concat(id, ',') FROM facts_fts_docsize WHERE id >= ?", (start,)
                ).fetchone()
                ids = (
                    np.fromstring(joined.decode(), dtype=np.int64, sep=",")
                    if joined
                    else np.empty(0, np.int64)
                )
        finally:
            conn.text_factory = factory
        tokens = np.zeros(max(int(rowids[-1]), last or 0) + 1, dtype=np.int64)
        if have is not None:
            tokens[: len(have)] = have
        tokens[ids] = self._varint_rows(data, len(ids))
        if keep:
            self.doc_tokens = tokens
        return tokens[rowids]

    def _varint_rows(self, data: bytes, rows: int) -> np.ndarray:
        """Per row, the sum of its FTS_COLUMNS varints, `data` holding `rows` rows' worth."""
        ends = _varint_ends(data)
        if len(ends) != rows * self.FTS_COLUMNS:
            raise StoreError(f"{self.where}: the full-text index is damaged (its size table does not add up)")
        if len(ends) == len(data):  # every count under 128: one byte each
            values = np.frombuffer(data, dtype=np.uint8).astype(np.int64)
        else:
            values = _varint_values(data, ends)
        return values.reshape(rows, self.FTS_COLUMNS).sum(axis=1)


@contextmanager
def _read_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One read transaction on `conn` (nested uses share the outer one)."""
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


def _varint_ends(data: bytes) -> np.ndarray:
    """Where each SQLite varint in `data` ends (its last byte has the high bit clear)."""
    return np.flatnonzero(np.frombuffer(data, dtype=np.uint8) < 128)


def _varint_values(data: bytes, ends: np.ndarray) -> np.ndarray:
    """The SQLite varints (big-endian, 7 bits a byte) packed in `data`, ending at `ends`;
    counts never need the 9-byte form."""
    raw = np.frombuffer(data, dtype=np.uint8).astype(np.int64)
    which = np.repeat(np.arange(len(ends)), np.diff(np.append(-1, ends)))  # varint of each byte
    shift = 7 * (ends[which] - np.arange(len(raw)))  # bytes after this one in its varint
    return np.bincount(which, weights=(raw & 127) << shift, minlength=len(ends)).astype(np.int64)


def _varints(data: bytes) -> list[int]:
    return _varint_values(data, _varint_ends(data)).tolist()


def _quoted(term: str) -> str:
    """One term as FTS5 syntax: quoted, so user text is never an operator; `*` kept."""
    prefix = term.endswith("*")
    return '"' + term.removesuffix("*").replace('"', '""') + '"' + ("*" if prefix else "")


def _rowids(conn: sqlite3.Connection, sql: str, args: tuple) -> np.ndarray:
    (joined,) = conn.execute(sql, args).fetchone()
    return np.fromstring(joined, dtype=np.int64, sep=",") if joined else np.empty(0, np.int64)


def _averages(conn: sqlite3.Connection) -> tuple[int, list[int]]:
    """FTS5's averages record: its row count and each column's token total."""
    found = conn.execute("SELECT block FROM facts_fts_data WHERE id = 1").fetchone()
    rows, *column_tokens = _varints(found[0]) if found else [0]
    return rows, column_tokens


def term_rows(
    conn: sqlite3.Connection, cache: TermCache, terms: Sequence[str], rows: int, keep: bool
) -> list[np.ndarray]:
    """Each term's rowids, ascending: from the cache where it has the term, reading only
    the rows appended since; from the index otherwise (`_hits`). `rows`: the index's row
    count now; `keep` False (inside a write, whose rows may yet roll back): keep nothing new."""
    (last,) = conn.execute("SELECT max(id) FROM facts_fts_docsize").fetchone()
    last = last or 0
    if cache.terms:
        (added,) = conn.execute(
            "SELECT count(*) FROM facts_fts_docsize WHERE id > ?", (cache.upto,)
        ).fetchone()
        if last < cache.upto or rows != cache.rows + added:
            cache.clear()  # rows rewritten or removed: nothing kept can be trusted
    if keep:
        cache.upto, cache.rows = last, rows
    side = _side(conn, cache, last)
    found = []
    for term in terms:
        # a plain word's key is its FTS5 string, as before the CJK table; with CJK rows
        # about, the key names the table's state, so rows kept without it are not reused
        key = _quoted(term) if side != _FILLED and not has_cjk(term) else f"{side}:{term}"
        have = cache.terms.get(key)
        if have is None:
            hits = _hits(conn, term, side)
        else:
            upto, hits = have
            hits = hits.astype(np.int64)
            cache.terms.move_to_end(key)
            if last > upto:
                hits = np.concatenate([hits, _hits(conn, term, side, upto)])
        if keep and (have is None or have[0] != last):
            cache.put(key, last, hits)
        found.append(hits)
    return found


# the state of the CJK table (cjk.py) in a snapshot: none (a store made before it), no row
# (no fact holds CJK), rows
_MISSING, _EMPTY, _FILLED = "none", "empty", "cjk"
_HAS_TABLE = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
_CJK_MATCH = f"SELECT group_concat(rowid, ',') FROM {cjk.TABLE} WHERE {cjk.TABLE} MATCH ?"
_LIKE = "SELECT group_concat(pos, ',') FROM facts WHERE text LIKE ? ESCAPE '\\'"


def _side(conn: sqlite3.Connection, cache: TermCache, last: int | None = None) -> str:
    """The CJK table's state, kept on `cache`: a table once made stays, and one holding rows
    goes on holding them (facts are only appended); an empty one stays empty while no fact
    is appended (`last`, the index's last rowid, unchanged). Only a state short of that is
    read again (a migration by another process, a first CJK fact)."""
    if cache.side == _FILLED or (cache.side == _EMPTY and last is not None and last == cache.side_at):
        return cache.side
    if cache.side != _EMPTY and conn.execute(_HAS_TABLE, (cjk.TABLE,)).fetchone() is None:
        cache.side = _MISSING
        return _MISSING
    filled = conn.execute(f"SELECT 1 FROM {cjk.TABLE}_docsize LIMIT 1").fetchone()
    cache.side, cache.side_at = (_FILLED if filled else _EMPTY), -1 if last is None else last
    return cache.side


def _union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two ascending rowid lists as one, each rowid once: marked in a dense array, a hundred
    times faster than np.union1d's sort of both for a quarter of a million rowids each."""
    if not len(a) or not len(b):
        return a if len(a) else b
    mark = np.zeros(int(max(a[-1], b[-1])) + 1, dtype=bool)
    mark[a] = True
    mark[b] = True
    return np.flatnonzero(mark)


def _hits(conn: sqlite3.Connection, term: str, side: str, after: int | None = None) -> np.ndarray:
    """The rowids holding one term (one unicode61 token, case folded, a prefix when it ends
    in `*`), ascending; only those above `after` when given: FTS5's match (a token of the
    text or the id beginning with it), with the CJK table's when it has rows (`组件` inside
    `使用React组件`, and `React` too) or, for a term holding CJK in a store made before that
    table, the facts whose text holds it (cjk.py)."""
    since, args = ("", ()) if after is None else (" AND rowid > ?", (after,))
    hits = _rowids(conn, _MATCH + since, (_quoted(term), *args))
    if side == _FILLED:
        more = _rowids(conn, _CJK_MATCH + since, (cjk.match(term), *args))
    elif side == _MISSING and has_cjk(term):
        more = _rowids(conn, _LIKE + ("" if after is None else " AND pos > ?"), (cjk.like(term), *args))
    else:
        return hits
    return _union(hits, more)


def search_any(index: WordIndex, terms: Sequence[str], weights: Sequence[float] | None = None) -> WordHits:
    """Facts matching any of `terms` (each one FTS5 token, matched as a prefix when it
    ends in `*`), with BM25 summed over the terms each matches: each term's idf (times
    its weight, when given) times the length-normalised term weight. The idf is Lucene's
    log(1 + (N - n + 0.5) / (n + 0.5)), not FTS5's log((N - n + 0.5) / (n + 0.5)) clamped
    to 1e-6: that one gives a word held by half the facts no weight at all, so in a small
    store `climbing gym` ranked nothing by `gym`. The caller bounds the number of terms."""
    none = np.empty(0, np.int64)
    empty = WordHits(none, np.empty(0), none, tuple(none for _ in terms))
    if not terms:
        return empty
    keep = not index.conn.in_transaction
    cache = index.terms
    with index.snapshot() as conn:
        rows, column_tokens = _averages(conn)
        found = term_rows(conn, cache, terms, rows, keep)
        scale = [float(np.log1p((rows - len(h) + 0.5) / (len(h) + 0.5))) for h in found]  # idf
        if weights is not None:
            scale = [idf * w for idf, w in zip(scale, weights, strict=True)]
        if len(found) == 1:  # one term: its rows, each holding it once
            rowids = found[0]
            idf_sum, held = np.full(len(rowids), scale[0]), np.ones(len(rowids), np.int64)
        else:
            rowids, idf_sum, held = _combine(found, scale)
        if not len(rowids):
            return empty
        weight = _weights(index, rows, column_tokens, int(rowids[-1]) + 1, keep)
        if weight is None:
            weight = _length_weight(index.row_tokens(conn, rowids, keep), rows, column_tokens)
        else:
            weight = weight[rowids]
    return WordHits(rowids - 1, idf_sum * weight, held, tuple(h - 1 for h in found))


def _combine(
    found: Sequence[np.ndarray], scale: Sequence[float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows holding any term, ascending, with the sum of the idf of the terms each holds
    and how many it holds. One pass per term sets the term's bit in a dense array indexed
    by rowid (np.unique over a million hits took half a second; adding into a float array
    per term, twice this); each set of terms held then names its idf sum and count in a
    table, the sum added in term order from 0.0 as adding term by term gives it."""
    top = max((int(h[-1]) for h in found if len(h)), default=0)  # rowids ascend per term
    width = next(t for t in (np.uint8, np.uint16, np.uint32, np.uint64) if np.iinfo(t).bits >= len(found))
    bits = np.zeros(top + 1, dtype=width)  # at most MAX_WORDS (64) terms
    for t, hits in enumerate(found):
        bits[hits] |= width(1 << t)
    rowids = np.flatnonzero(bits != 0)
    held_bits = bits[rowids]
    if len(found) <= 16:  # a table of 65,536 sums at most
        sums, counts = np.zeros(1), np.zeros(1, dtype=np.int64)
        for idf in scale:
            sums, counts = np.concatenate([sums, sums + idf]), np.concatenate([counts, counts + 1])
        at = held_bits.astype(np.intp)  # once, rather than by each lookup
        return rowids, sums.take(at), counts.take(at)
    idf_sum, held = np.zeros(len(rowids)), np.zeros(len(rowids), dtype=np.int64)
    for t, idf in enumerate(scale):
        has = np.bitwise_and(held_bits, width(1 << t)) != 0
        idf_sum[has] += idf
        held += has
    return rowids, idf_sum, held


def _weights(
    index: WordIndex, rows: int, column_tokens: list[int], need: int, keep: bool
) -> np.ndarray | None:
    """`_length_weight` of every row read so far, by rowid, kept while the averages hold
    (an append moves them: one pass over a million rows, 10 ms); None when the rows up to
    `need` are not all read yet, or inside a write."""
    tokens, cache = index.doc_tokens, index.terms
    if not keep or tokens is None or len(tokens) < need:
        return None
    key = (rows, tuple(column_tokens), len(tokens))
    if cache.weight_key != key:
        cache.weight, cache.weight_key = _length_weight(tokens, rows, column_tokens), key
    return cache.weight


def search(index: WordIndex, query: str, limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """FTS5 matches for free words (each a prefix, all required): 0-based positions,
    ascending, and their relevance (> 0, higher is better); with `limit`, only the most
    relevant, best first. The words are ANDed, so every match holds every word and the idf
    sum, the same for all of them, is left out. Each word is quoted, so user text is never
    FTS syntax."""
    words = [w for w in query.split() if w]
    if not words:
        return np.empty(0, np.int64), np.empty(0)
    keep = not index.conn.in_transaction  # inside a write, rows read may yet roll back
    with index.snapshot() as conn:
        side = _side(conn, index.terms)
        if side != _FILLED and not any(map(has_cjk, words)):
            rowids = _rowids(conn, _MATCH, (" ".join(_quoted(w + "*") for w in words),))
        else:
            rowids = _every(conn, words, side)
        if not len(rowids):
            return np.empty(0, np.int64), np.empty(0)
        tokens = index.row_tokens(conn, rowids, keep)
        rows, column_tokens = _averages(conn)
    relevance = len(words) * _length_weight(tokens, rows, column_tokens)
    pos = rowids - 1
    if limit:
        best = np.argsort(-relevance, kind="stable")[: int(limit)]
        pos, relevance = pos[best], relevance[best]
    return pos, relevance


def _every(conn: sqlite3.Connection, words: Sequence[str], side: str) -> np.ndarray:
    """The rowids holding every word (each a prefix), with CJK about: word by word, a
    word of one token through `_hits`, one of several (`CS:GO`) as FTS5's phrase unless it
    holds CJK, then each of its tokens."""
    found: np.ndarray | None = None
    for word in words:
        toks = cjk.TOKEN.findall(word.casefold())
        if len(toks) > 1 and not has_cjk(word):
            hits = _rowids(conn, _MATCH, (_quoted(word + "*"),))
        else:
            hits = _all_of([_hits(conn, t + "*", side) for t in toks])
        found = hits if found is None else np.intersect1d(found, hits, assume_unique=True)
    return found if found is not None else np.empty(0, np.int64)


def _all_of(each: Sequence[np.ndarray]) -> np.ndarray:
    out = each[0] if each else np.empty(0, np.int64)
    for hits in each[1:]:
        out = np.intersect1d(out, hits, assume_unique=True)
    return out


def _length_weight(tokens: np.ndarray, rows: int, column_tokens: list[int]) -> np.ndarray:
    """BM25's term weight for one occurrence: (k1 + 1) / (1 + k1 (1 - b + b len / mean))."""
    mean = sum(column_tokens) / rows if rows else 0.0
    length = tokens / mean if mean > 0 else np.ones(len(tokens))
    return (BM25_K1 + 1) / (1 + BM25_K1 * (1 - BM25_B + BM25_B * length))
