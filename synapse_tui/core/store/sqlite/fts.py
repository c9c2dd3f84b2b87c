"""A file's word index: FTS5's token count of each row, read from its docsize table
(varints) and kept once read, for words.py's BM25."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

import numpy as np

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.store.ops import WordHits
from synapse_tui.core.store.sql import SqlStore


class WordCounts(SqlStore):
    """Word search over the store's FTS5 table (words.py), with each row's token count."""

    _conn: sqlite3.Connection

    # -- full text ----------------------------------------------------------------------
    # Word search and its BM25 live in store/words.py, which keeps each term's rows once read.
    FTS_COLUMNS = 2  # facts_fts: id, text (docsize holds one varint per column per row)
    _doc_tokens: np.ndarray | None = None  # tokens per FTS row by rowid, once read whole

    def search(self, query: str, limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Facts holding every word (each a prefix): see words.search."""
        from synapse_tui.core.store import words

        return words.search(self, query, limit)

    def search_any(self, terms: Sequence[str], weights: Sequence[float] | None = None) -> WordHits:
        """Facts holding any of the terms, with their BM25: see words.search_any."""
        from synapse_tui.core.store import words

        return words.search_any(self, terms, weights)

    def prepare_search(self) -> None:
        """Read every row's token count now (0.15 s at a million facts), so that the first
        broad search of a long-running process does not: for a server or a browser to call
        once the store is open and the first answer or paint is out."""
        with self.snapshot() as conn:
            (last,) = conn.execute("SELECT max(id) FROM facts_fts_docsize").fetchone()
            if last is not None:
                self._row_tokens(conn, np.array([last], dtype=np.int64), keep=True, whole=True)

    def _row_tokens(
        self, conn: sqlite3.Connection, rowids: np.ndarray, keep: bool, whole: bool = False
    ) -> np.ndarray:
        """Token counts of FTS rows (ascending rowids), from the docsize table. A search
        matching few of the rows not read yet reads just its own (1.5 us a row); one
        matching many reads all the rest in one aggregate (0.15 s at a million) and keeps
        them, so later searches read only rows appended since: facts are never rewritten
        or removed, so a count once read stays true. `keep` False (inside a write): keep
        nothing; `whole`: read all the rest whatever the matches."""
        have = self._doc_tokens
        start = 0 if have is None else len(have)
        unread = rowids[rowids >= start]
        if not len(unread):
            return have[rowids]
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
            self._doc_tokens = tokens
        return tokens[rowids]

    def _varint_rows(self, data: bytes, rows: int) -> np.ndarray:
        """Per row, the sum of its FTS_COLUMNS varints, `data` holding `rows` rows' worth."""
        ends = _varint_ends(data)
        if len(ends) != rows * self.FTS_COLUMNS:
            raise StoreError(f"{self.path}: the full-text index is damaged (its size table does not add up)")
        if len(ends) == len(data):  # every count under 128: one byte each
            values = np.frombuffer(data, dtype=np.uint8).astype(np.int64)
        else:
            values = _varint_values(data, ends)
        return values.reshape(rows, self.FTS_COLUMNS).sum(axis=1)


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
