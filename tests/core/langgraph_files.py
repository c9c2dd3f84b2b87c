"""LangGraph `store` tables written by langgraph's own SqliteStore."""

from __future__ import annotations

from pathlib import Path

import pytest

SqliteStore = pytest.importorskip("langgraph.store.sqlite").SqliteStore
NS = ("memories", "alice")


def put(path: Path, *items: tuple, delete: tuple[str, ...] = ()) -> Path:
    """Write through langgraph's own store, as an agent would."""
    with SqliteStore.from_conn_string(str(path)) as store:
        store.setup()
        for key, value, *ttl in items:
            store.put(NS, key, value, ttl=ttl[0] if ttl else None)
        for key in delete:
            store.delete(NS, key)
    return path
