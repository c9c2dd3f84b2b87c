"""The suggestion queues say what a key does to the row under the cursor: on a gone path's
row of the Replaced? queue `y` records a contradiction, and the Footer and help say so (not
"accept", the newer fact superseding the older, which is what it says on a replaced pair's
row); the Gone? queue on a store with no repository says it cannot check once a visit, not
again at every undo and redo. Pilot tests on real stores (a real git repository)."""

from __future__ import annotations

import shutil

import pytest

from tests.cli_run import run
from tests.helpers import write_jsonl
from tests.ui.helpers import SIZE, make_app, record_notices, settle


async def test_no_repository_is_said_once_a_visit_not_at_every_undo(tmp_path):
    """A newcomer undid and redid a triage with the Gone? queue open on a store with no
    repository: each ctrl+z and ctrl+y said "referents cannot be checked" again."""
    db = tmp_path / "memory.db"
    (tmp_path / "memory.synapse.toml").write_text("")
    facts = [{"id": "f1", "text": "src/app.py holds the routes", "created_at": "2025-01-01T00:00:00Z"}]
    run("import", write_jsonl(tmp_path / "f.jsonl", facts), "--db", db)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")  # a triage in the list, for ctrl+z to undo
        await settle(pilot)
        notices = record_notices(app)
        await pilot.press("B")
        await settle(pilot)
        await settle(pilot)
        for key in ("ctrl+z", "ctrl+y", "ctrl+z"):
            await pilot.press(key)
            await settle(pilot)
            await settle(pilot)
        told = [text for _, text in notices if "referents cannot be checked" in text]
        assert len(told) == 1, notices
        assert any("undid" in text.lower() or "undo" in text.lower() for _, text in notices), notices
        await pilot.press("escape", "B")  # a new visit: said again
        await settle(pilot)
        await settle(pilot)
        told = [text for _, text in notices if "referents cannot be checked" in text]
        assert len(told) == 2, notices
