"""What a test compares to say a store was left alone, on either backend (`tests/backends.py`).

A file is left alone when not one byte of it (nor of its WAL) changed. A store on a server is
left alone when every row of every table in its schema is the row it was, written by the same
transaction (`xmin`): a row rewritten with the same values counts as a write, as it would
change a file's bytes.
"""

from __future__ import annotations

import os
from pathlib import Path

from synapse_tui.core.base.location import is_server


def mark(location: str | os.PathLike[str]) -> object:
    """A value that differs after any write to the store at `location`."""
    if not is_server(location):
        path = Path(location)
        wal = path.with_name(path.name + "-wal")
        return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    import psycopg

    with psycopg.connect(str(location), autocommit=True) as conn:
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1"
            )
        ]
        assert tables, f"no store at {location}"
        return {
            name: conn.execute(f'SELECT t.xmin::text, t::text FROM "{name}" t ORDER BY 2, 1').fetchall()
            for name in tables
        }


def exists(location: str | os.PathLike[str]) -> bool:
    """Whether anything was made at `location`: a file, or a table in the server's schema."""
    if not is_server(location):
        return Path(location).exists()
    import psycopg

    with psycopg.connect(str(location), autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()").fetchone()
    return row[0] > 0
