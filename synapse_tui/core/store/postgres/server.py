"""Opening a store on a server: connect, check it is ours, migrate it when written."""

from __future__ import annotations

from typing import Any

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import Location
from synapse_tui.core.store.postgres import schema
from synapse_tui.core.store.postgres.connect import connect, errors_named


def open_server(where: Location, *, create: bool = False, readonly: bool = False) -> Any:
    """A connection to the store at `where`, brought to the current schema (a new one made
    when `create`), with no transaction open. Read-only: a store that needs an upgrade is
    refused rather than changed."""
    conn = connect(where)  # waits for a lock at most lock_timeout (`session_defaults`)
    try:
        with errors_named(where, "cannot open the store"):
            version = schema.state(conn, where)
            if version is None and not create:
                raise StoreError(
                    f"{where.shown}: holds no synapse-tui store (copy one there with `synapse-tui copy`)"
                )
            if version != schema.SCHEMA_VERSION:
                if readonly:
                    if version is None or version < schema.READABLE_FROM:
                        raise StoreError(f"{where.shown}: needs an upgrade, which a read-only open cannot do")
                else:
                    schema.migrate(conn, where)
            conn.commit()
    except BaseException:
        conn.close()
        raise
    return conn


def holds_store(location: str) -> bool:
    """Whether the database at `location` holds a synapse-tui store (`Path.exists` of a
    file's): read only, so asking leaves an empty database as it was."""
    from synapse_tui.core.base.location import locate

    where = locate(location)
    conn = connect(where)
    try:
        with errors_named(where, "cannot open the store"):
            return schema.state(conn, where) is not None
    finally:
        conn.close()
