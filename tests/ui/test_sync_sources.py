"""The palette's "Sync sources": a browser left open beside an agent takes in what the agent
wrote since, from every source the store was imported from."""

from __future__ import annotations

import time

from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.sources import sync_recorded
from tests.cli_run import run
from tests.core.mcp_memory_files import ENTITIES, RELATIONS, save
from tests.ui.helpers import make_app, palette_answered, settle

SIZE = (120, 30)


def test_sync_recorded_reports_each_source_and_goes_on_after_a_failure(tmp_path):
    memory, other = save(tmp_path / "memory.jsonl"), save(tmp_path / "other.jsonl", ENTITIES[:1], [])
    db = tmp_path / "memory.db"
    run("import", "--from", "mcp-memory", memory, "--db", db)
    run("import", "--from", "mcp-memory", other, "--db", db)
    other.unlink()
    save(memory, [{**ENTITIES[1], "observations": ["Builds rockets", "Opened a Lyon office"]}], RELATIONS)
    (first, one), (second, two) = sync_recorded(db, Config())
    assert first["source"] == str(memory.resolve()) and (one.added, one.newly_deleted) == (1, 2)
    assert isinstance(two, str) and "no such file" in two and str(other.resolve()) in two


async def test_palette_sync_sources_brings_in_what_the_agent_wrote(tmp_path):
    memory = save(tmp_path / "memory.jsonl")
    db = tmp_path / "memory.db"
    run("import", "--from", "mcp-memory", memory, "--db", db)
    app = make_app(db)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert len(app.memory.ids) == 3
            save(
                memory,
                [
                    {**ENTITIES[0], "observations": [*ENTITIES[0]["observations"], "Moved to Lyon"]},
                    *ENTITIES[1:],
                ],
            )
            await pilot.press("ctrl+p")
            await pilot.pause()
            await pilot.press(*"sync sources")
            await palette_answered(pilot)
            await pilot.press("enter")
            deadline = time.monotonic() + 20
            while len(app.memory.ids) != 4 and time.monotonic() < deadline:
                await settle(pilot, 0.3)
            assert len(app.memory.ids) == 4  # reloaded: the sync wrote on a connection of its own
    finally:
        app.store.close()
