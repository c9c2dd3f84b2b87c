"""One read of the store as a value: its statement, its arguments and what makes the answer
of its rows, so that several can be sent together (`Store.read_all`: what `show` reads of a
fact, what an action is decided on): a server's store sends them in one round trip, a
file's runs them one after the other."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple


class Read(NamedTuple):
    sql: str  # in SQLite's dialect, as every statement of the Store
    args: tuple
    convert: Callable[[list[tuple]], Any]  # the answer, from every row the statement gave


def answer(conn: Any, read: Read) -> Any:
    """One read's answer, asked on its own."""
    return read.convert(conn.execute(read.sql, read.args).fetchall())
