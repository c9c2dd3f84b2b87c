"""A small store of two `replaced` suggestions in one note (d1 -> d2, b1 -> b2), and the clock
its tests ask at: for the tests of the suggestions a long-lived memory keeps."""

from __future__ import annotations

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl

FACTS = [
    {"id": "d1", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {
        "id": "d2",
        "text": "deploys run on Tuesdays since March",
        "created_at": "2025-03-05T00:00:00Z",
        "note": "ops",
    },
    {"id": "b1", "text": "backups run at 02:00 UTC", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {"id": "b2", "text": "backups now run at 03:00 UTC", "created_at": "2025-04-01T00:00:00Z", "note": "ops"},
]
NOW = Clock(parse_time("2025-06-01T00:00:00Z"))


def two_pairs_store(tmp_path):
    src = write_jsonl(tmp_path / "f.jsonl", FACTS)
    store = Store.open(tmp_path / "memory.db", create=True)
    import_facts(store, parse_file(src), str(src))
    return store
