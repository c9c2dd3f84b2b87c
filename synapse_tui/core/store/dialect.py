"""What the statements both backends share spell differently, each a named method.

A statement of `SqlStore` or of a component (imports, the graph's tables) that needs a
spelling only one database reads asks the store's `dialect` for it where it is built, so
one statement is written once and rendered for either database: SQLite's here, the
server's in postgres/dialect.py (`PostgresDialect`). Nothing rewrites a statement after it
is written, and nothing reads one to guess what it does: the one operation the databases
run differently, plain rows in bulk, is asked for by name (`insert_rows`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any


class Dialect:
    """SQLite's spellings (a file's store, and a bare connection the graph's tests hand over)."""

    def in_list(self, expr: str) -> str:
        """`expr` is one of the values of the list bound at this placeholder (`list_arg`)."""
        return f"{expr} IN (SELECT value FROM json_each(?))"

    def list_arg(self, values: Iterable[Any]) -> Any:
        """The argument `in_list`'s placeholder takes: SQLite binds a list as JSON text."""
        return json.dumps(list(values))

    def unindexed(self, table: str) -> str:
        """`table` scanned whole rather than through an index (a planner hint to SQLite)."""
        return f"{table} NOT INDEXED"

    def data_version(self) -> str:
        """A statement whose one value changes when another connection commits."""
        return "PRAGMA data_version"

    def day_number(self, expr: str) -> str:
        """The instant `expr` (ISO text) as a count of days, SQLite's julianday: rounded to
        the millisecond, counted from the Julian epoch, so both databases give one double."""
        return f"julianday({expr})"

    def json_text(self, column: str, key: str) -> str:
        """The text at `key` of the JSON object in `column` (NULL where it is none)."""
        return f"json_extract({column}, '$.{key}')"

    def json_texts(self, column: str, keys: Sequence[str]) -> str:
        """The values at `keys` of the JSON object in `column` as one JSON array's text (a
        null where a key is absent), the object parsed once."""
        valid = f"CASE WHEN json_valid({column}) THEN {column} END"
        if len(keys) == 1:  # one path gives the value itself, not an array
            return f"json_array(json_extract({valid}, '$.{keys[0]}'))"
        paths = ", ".join(f"'$.{k}'" for k in keys)
        return f"json_extract({valid}, {paths})"

    def positions(self) -> str:
        """The aggregate of a group's 0-based positions as text, comma-separated."""
        return "group_concat(pos - 1, ',')"

    def upsert(self, table: str, columns: Sequence[str], key: str, source: str) -> str:
        """Insert `source`'s rows (`VALUES (...)` or a SELECT) into `table`, a row whose
        `key` is taken replacing the one there."""
        return f"INSERT OR REPLACE INTO {table} ({', '.join(columns)}) {source}"

    def insert_ignore(self, table: str, columns: Sequence[str], source: str) -> str:
        """Insert `source`'s rows into `table`, but for those whose key is taken."""
        return f"INSERT OR IGNORE INTO {table} ({', '.join(columns)}) {source}"

    def insert_rows(
        self, conn: Any, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
    ) -> None:
        """Insert plain values, one per column, row by row, on `conn` (an import's facts and
        mentions, the graph's edges, an action's audit entries): SQLite's one executemany;
        the server's one COPY (`PostgresDialect`)."""
        marks = ", ".join("?" * len(columns))
        conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)


SQLITE = Dialect()
