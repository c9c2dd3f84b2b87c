"""How a memory is kept: the one interface (`api.Store`) and its two sibling backends,
SQLite (`sqlite/`) and PostgreSQL (`postgres/`).

Python runs this before any module of the package, so it is where `Store.open` learns which
backend a location names: the interface sits below its backends and imports none of them.
"""

from __future__ import annotations

import os

from synapse_tui.core.base.location import is_server
from synapse_tui.core.store import api


def _open(location: str | os.PathLike[str], *, create: bool, readonly: bool) -> api.Store:
    """A server's URL opens a `PgStore` (psycopg imported only then), anything else a file."""
    if is_server(location):
        from synapse_tui.core.store.postgres.store import open_store

        return open_store(location, create=create, readonly=readonly)
    from synapse_tui.core.store.db import SqliteStore

    return SqliteStore.open_file(location, create=create, readonly=readonly)


api.register_opener(_open)
