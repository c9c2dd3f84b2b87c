"""Word search on a server: FTS5's own index of the facts, kept by this process.

The ranking must be a file's, term for term: the same unicode61 tokens (case folded,
diacritics removed, split where SQLite splits) and the same BM25 inputs (each row's token
count, the averages, each term's rows). PostgreSQL's text search cannot give that: its
parser splits e-mail addresses, URLs, hyphenated words and numbers its own way, and a
tsvector counts tokens differently. So this process keeps an FTS5 table of the server's
facts (id and text, contentless, in memory) and store/words.py ranks over it unchanged.

It costs one read of every fact's id and text at the first search (a second at 100,000
facts) and then only the facts appended since, which the same reasoning as words.py's
caches allows: a fact's id and text are never rewritten, and facts are only appended.
Should the server's facts have moved otherwise (their count no longer adds up), the copy
is rebuilt from nothing. Facts a write in progress appended are searched but not kept:
they may roll back, and others' facts take their positions.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from synapse_tui.core.store import cjk
from synapse_tui.core.store.dialect import SQLITE
from synapse_tui.core.store.words import WordIndex

BATCH = 10_000  # rows fetched and inserted at a time


class Mirror:
    """An in-memory FTS5 table of a server's facts (rowid = pos), and the `WordIndex` that
    searches it (`index`)."""

    def __init__(self) -> None:
        self.top = 0  # the last position copied
        self.rows = 0  # how many rows are copied
        self.index = self._new()
        # while rows of a write in progress are copied (`sync(writing=True)`): the copy's
        # state before them, to put back at the next sync
        self._before: tuple[int, int, Any] | None = None

    @staticmethod
    def _new() -> WordIndex:
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        conn.execute("CREATE VIRTUAL TABLE facts_fts USING fts5(id, text, content='', tokenize='unicode61')")
        conn.execute(cjk.CREATE)
        return WordIndex(conn, "the server's word index")

    def close(self) -> None:
        self.index.conn.close()

    def sync(
        self, raw: Any, errors_named: Callable[[], AbstractContextManager[None]], writing: bool = False
    ) -> None:
        """Copy the facts appended since the last sync (all of them the first time), inside
        the caller's snapshot of the server; `errors_named` puts the server's failures in
        one line. `writing`: the caller is inside a write transaction, whose rows may yet
        roll back: they are copied in a transaction of the copy's own, left open while the
        caller searches (so words.py keeps nothing of them, as inside a file's write) and
        rolled back at the next sync."""
        self._forget_tentative()
        with errors_named():
            self._sync(raw, writing)

    def _forget_tentative(self) -> None:
        if self._before is None:
            return
        self.index.conn.execute("ROLLBACK")
        self.top, self.rows, self.index.doc_tokens = self._before
        self._before = None

    def _sync(self, raw: Any, writing: bool) -> None:
        top, count = raw.execute("SELECT coalesce(max(pos), 0), count(*) FROM facts").fetchone()
        if (top, count) == (self.top, self.rows):
            return
        (added,) = raw.execute("SELECT count(*) FROM facts WHERE pos > %s", (self.top,)).fetchone()
        if top < self.top or self.rows + added != count:  # not appends only: start again
            self.index.conn.close()
            self.index, self.top, self.rows = self._new(), 0, 0
        conn = self.index.conn
        before = (self.top, self.rows, self.index.doc_tokens)
        with raw.cursor(name="synapse_words") as cur:
            cur.itersize = BATCH
            cur.execute("SELECT pos, id, text FROM facts WHERE pos > %s ORDER BY pos", (self.top,))
            conn.execute("BEGIN")
            try:
                while rows := cur.fetchmany(BATCH):
                    SQLITE.insert_rows(conn, "facts_fts", ("rowid", "id", "text"), rows)
                    SQLITE.insert_rows(conn, cjk.TABLE, ("rowid", "grams"), cjk.rows(rows))
                    self.top, self.rows = rows[-1][0], self.rows + len(rows)
            except BaseException:
                conn.execute("ROLLBACK")
                self.index.conn.close()
                self.index, self.top, self.rows = self._new(), 0, 0
                raise
            if writing:
                self._before = before
            else:
                conn.execute("COMMIT")
