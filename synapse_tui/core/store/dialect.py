"""What the statements both backends share spell differently, each a named method.

A statement of `SqlStore` or of a component (imports, the graph's tables) that needs a
spelling only one database reads asks the store's `dialect` for it where it is built, so
one statement is written once and rendered for either database: SQLite's here, the
server's in postgres/dialect.py (`PostgresDialect`). Nothing rewrites a statement after it
is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
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


SQLITE = Dialect()
