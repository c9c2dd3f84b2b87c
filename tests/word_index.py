"""FTS5's own index of a list of facts, to check a store's word search against on a file or a
server: an in-memory FTS5 table of the same ids and texts at the positions an import gives
them (1, 2, ... in order), with the tokenizer the store's schema names. Built from the facts
the test wrote, not from the store, so a store whose index missed or kept a row is caught."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable


class WordIndex:
    def __init__(self, facts: Iterable[dict] = ()) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE facts_fts USING fts5(id, text, tokenize='unicode61')")
        self.last = 0
        self.add(facts)

    def add(self, facts: Iterable[dict]) -> None:
        """Facts appended to the store, in the order they were imported."""
        rows = [(self.last + i, f["id"], f["text"]) for i, f in enumerate(facts, 1)]
        self.conn.executemany("INSERT INTO facts_fts (rowid, id, text) VALUES (?, ?, ?)", rows)
        self.last += len(rows)

    def execute(self, sql: str, args: tuple = ()) -> list[tuple]:
        return self.conn.execute(sql, args).fetchall()
