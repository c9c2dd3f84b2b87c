"""STAND-IN for `core/adapters/sync.py` (branch adapters-mem0) until it is merged.

It does only what sync is specified to do, so these tests can check the readers end to end:
import the snapshot's facts whose id is new, flag the ids in `snapshot.deleted`, touch
nothing else. Once `sync_snapshot` exists it is used instead, so after the merge the
tests run against the real thing.
"""

from __future__ import annotations

from synapse_tui.core.adapters import Snapshot
from synapse_tui.core.config import Config
from synapse_tui.core.graphstore import update_graph
from synapse_tui.core.interchange import import_facts
from synapse_tui.core.store import Store


def sync(store: Store, snapshot: Snapshot, config: Config | None = None) -> None:
    config = config or Config()
    try:
        from synapse_tui.core.adapters.sync import sync_snapshot
    except ImportError:
        sync_snapshot = None
    if sync_snapshot is not None:
        sync_snapshot(store, snapshot, config)
        return
    existing = {row[0] for row in store.conn.execute("SELECT id FROM facts")}
    new = [f for f in snapshot.facts if f.id not in existing]
    result = import_facts(store, new, snapshot.source)
    with store.transaction() as conn:
        conn.executemany(
            "UPDATE facts SET deleted = 1 WHERE id = ?", [(i,) for i in sorted(snapshot.deleted)]
        )
        update_graph(conn, result.new_positions, config)
