"""One statement of the store as a value, inside `core/store` only: its SQL, its arguments
and what makes the answer of its rows. A backend maps each typed read of ops.py to some of
these (`SqlStore._plan`), so that `Store.batch` can send several together: a server's store
in one round trip, a file's one after the other."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple


class Read(NamedTuple):
    sql: str  # in SQLite's dialect, as every statement of the Store
    args: tuple
    convert: Callable[[list[tuple]], Any]  # the answer, from every row the statement gave


def answer(conn: Any, read: Read) -> Any:
    """One read's answer, asked on its own."""
    return read.convert(conn.execute(read.sql, read.args).fetchall())


def json_column(value: str | None, want: type | None = None) -> Any:
    """A JSON column: None when absent, not JSON, or not of the type `want`. A server's
    rows come from any login that may insert (an agent's role): one written by hand must
    read as unknown, not fail every reader (issue 37)."""
    if value is None:
        return None
    try:
        loaded = json.loads(value)
    except (ValueError, TypeError):
        return None
    return loaded if want is None or isinstance(loaded, want) else None
