"""A store whose audit holds people's verdicts, for the calibration report and its screen."""

from __future__ import annotations

from synapse_tui.core.base.clock import Clock, format_time, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl

T0 = parse_time("2026-06-01T00:00:00Z")
DAY = 86400.0


def verdicts_store(tmp_path, pairs=60):
    """A person who verifies what is two days old and contradicts what is a year old, day
    after day: the current constants doubt the fresh ones too much and the old ones too little."""
    facts = []
    for i in range(pairs):
        facts.append(
            {"id": f"new{i:03d}", "text": f"recent {i}", "created_at": format_time(T0 + (i - 2) * DAY)}
        )
        facts.append({"id": f"old{i:03d}", "text": f"stale {i}", "created_at": format_time(T0 - 400 * DAY)})
    facts = [f | {"tier": "human"} for f in facts]
    src = write_jsonl(tmp_path / "f.jsonl", facts)
    db = tmp_path / "memory.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
        for i in range(pairs):
            clock = Clock(T0 + i * DAY)
            Triage(store, clock, actor="user:ann", config=Config()).apply("verify", [f"new{i:03d}"])
            Triage(store, clock, actor="user:ann", config=Config()).apply("contradict", [f"old{i:03d}"])
    return db
