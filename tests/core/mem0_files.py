"""mem0's own files, written from the schemas in mem0's source (never by running mem0).

- Python SDK `mem0/memory/storage.py`: `history(id, memory_id, old_memory, new_memory,
  event, created_at, updated_at, is_deleted, actor_id, role)`; before its group-chat
  migration the same with `new_value` and without `actor_id`/`role`; the first SDK had
  `history(id, memory_id, prev_value, new_value, event, timestamp, is_deleted)`.
- TypeScript SDK `storage/SQLiteManager.ts`: `memory_history(id INTEGER AUTOINCREMENT,
  memory_id, previous_value, new_value, action, created_at, updated_at, is_deleted)`;
  `vector_stores/memory.ts`: `vectors(id, vector BLOB float32, payload TEXT)`.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.adapters import mem0
from synapse_tui.core.ingest.adapters.sync import sync_snapshot
from synapse_tui.core.store.db import Store

SHAPES = {
    "now": "CREATE TABLE history (id TEXT PRIMARY KEY, memory_id TEXT, old_memory TEXT, new_memory TEXT,"
    " event TEXT, created_at DATETIME, updated_at DATETIME, is_deleted INTEGER, actor_id TEXT, role TEXT)",
    "legacy": "CREATE TABLE history (id TEXT PRIMARY KEY, memory_id TEXT, old_memory TEXT, new_memory TEXT,"
    " new_value TEXT, event TEXT, created_at DATETIME, updated_at DATETIME, is_deleted INTEGER)",
    "first": "CREATE TABLE history (id TEXT PRIMARY KEY, memory_id TEXT, prev_value TEXT, new_value TEXT,"
    " event TEXT, timestamp DATETIME, is_deleted INTEGER)",
    "ts": "CREATE TABLE memory_history (id INTEGER PRIMARY KEY AUTOINCREMENT, memory_id TEXT NOT NULL,"
    " previous_value TEXT, new_value TEXT, action TEXT NOT NULL, created_at TEXT, updated_at TEXT,"
    " is_deleted INTEGER DEFAULT 0)",
}


def ev(memory, event, new=None, old=None, created=None, updated=None, actor=None, role=None, hid=None):
    """One history event as mem0 writes it (see mem0/memory/main.py _create/_update/_delete)."""
    return {
        "id": hid or str(uuid.uuid4()),
        "memory_id": memory,
        "old": old,
        "new": new,
        "event": event,
        "created_at": created,
        "updated_at": updated,
        "is_deleted": int(event == "DELETE"),
        "actor_id": actor,
        "role": role,
    }


def write_history(path: Path, events: list[dict], shape: str = "now") -> Path:
    """Create (or append to) a history database of one of mem0's shapes."""
    conn = sqlite3.connect(path)
    exists = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    if not exists:
        conn.execute(SHAPES[shape])
    for e in events:
        if shape == "now":
            conn.execute(
                "INSERT INTO history VALUES (?,?,?,?,?,?,?,?,?,?)",
                (e["id"], e["memory_id"], e["old"], e["new"], e["event"], e["created_at"], e["updated_at"])
                + (e["is_deleted"], e["actor_id"], e["role"]),
            )
        elif shape == "legacy":
            conn.execute(
                "INSERT INTO history (id, memory_id, old_memory, new_memory, event, created_at, updated_at,"
                " is_deleted) VALUES (?,?,?,?,?,?,?,?)",
                (e["id"], e["memory_id"], e["old"], e["new"], e["event"], e["created_at"], e["updated_at"])
                + (e["is_deleted"],),
            )
        elif shape == "first":
            conn.execute(
                "INSERT INTO history VALUES (?,?,?,?,?,?,?)",
                (e["id"], e["memory_id"], e["old"], e["new"], e["event"], e["updated_at"] or e["created_at"])
                + (e["is_deleted"],),
            )
        else:
            conn.execute(
                "INSERT INTO memory_history (memory_id, previous_value, new_value, action, created_at,"
                " updated_at, is_deleted) VALUES (?,?,?,?,?,?,?)",
                (
                    e["memory_id"],
                    e["old"],
                    e["new"],
                    e["event"],
                    e["created_at"],
                    e["updated_at"],
                    e["is_deleted"],
                ),
            )
    conn.commit()
    conn.close()
    return path


def write_ts_vectors(path: Path, points: dict[str, tuple[list[float], dict]]) -> Path:
    """The TypeScript SDK's vector_store.db (vector_stores/memory.ts)."""
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE IF NOT EXISTS vectors (id TEXT PRIMARY KEY, vector BLOB NOT NULL, payload TEXT NOT NULL)"
    )
    conn.execute(
        "CREATE TABLE IF NOT EXISTS memory_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL UNIQUE)"
    )
    for pid, (vector, payload) in points.items():
        conn.execute(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
            (pid, np.asarray(vector, dtype="<f4").tobytes(), json.dumps(payload)),
        )
    conn.commit()
    conn.close()
    return path


def story() -> list[dict]:
    """Three memories: one updated (offset times, as mem0 wrote before 2026), one deleted, one kept."""
    return [
        ev("m-tea", "ADD", "Alice likes tea", created="2025-03-01T09:00:00.250000-08:00", actor="alice", role="user", hid="h1"),
        ev("m-paris", "ADD", "Alice lives in Paris", created="2025-03-02T10:00:00-08:00", hid="h2"),
        ev("m-dog", "ADD", "Alice has a dog named Rex", created="2025-03-03T11:00:00-08:00", hid="h3"),
        ev(
            "m-tea", "UPDATE", "Alice likes coffee", old="Alice likes tea",
            created="2025-03-01T09:00:00.250000-08:00", updated="2025-06-01T10:30:00-07:00",
            actor="alice", role="user", hid="h4",
        ),
        ev(
            "m-paris", "DELETE", None, old="Alice lives in Paris",
            created="2025-03-02T18:00:00+00:00", updated="2025-07-01T00:00:00+00:00", hid="h5",
        ),
    ]  # fmt: skip


def sync(store_path, history, **kw):
    with Store.open(store_path, create=True) as store:
        return sync_snapshot(store, mem0.read(history, **kw), Config())


def merged_history(path, events: list[dict]):
    """A history table as a merge of two copies leaves it: mem0's columns, no primary key."""
    conn = sqlite3.connect(path)
    conn.execute(SHAPES["now"].replace(" PRIMARY KEY", ""))
    conn.commit()
    conn.close()
    return write_history(path, events)
