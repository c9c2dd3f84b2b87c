"""`Y` in the Replaced? queue with a replaced pair and a gone path marked together: both land
as one audited batch (a supersede and the repository's contradiction), and one ctrl+z brings
both back as suggestions."""

from __future__ import annotations

import shutil

import pytest

from tests.cli_run import run
from tests.core.referent_repo import NOTES, build
from tests.helpers import write_jsonl
from tests.ui.helpers import SIZE, audit, imported, make_app, screen_text, settle

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

PAIR = [
    {"id": "p1", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {
        "id": "p2",
        "text": "deploys run on Tuesdays since March",
        "created_at": "2025-03-05T00:00:00Z",
        "note": "ops",
    },
]
GONE = "gone: src/auth/login.py"


async def test_a_replaced_pair_and_a_gone_path_are_one_undo_step(tmp_path):
    repo = build(tmp_path / "repo", NOTES)
    db = imported(tmp_path, "memory", "--from", "git-notes", repo / "notes")
    run("import", write_jsonl(tmp_path / "pair.jsonl", PAIR), "--db", db)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        await settle(pilot)
        seen = screen_text(app)
        assert "→ p2" in seen and GONE in seen, seen
        before = len(audit(db))
        await pilot.press("M", "Y", "y")  # mark all, accept, confirm
        await settle(pilot)
        await settle(pilot)
        landed = audit(db)[before:]
        assert {e["action"] for e in landed} == {"contradict", "supersede"}, landed
        assert len({e["batch"] for e in landed}) == 1, landed
        await settle(pilot)
        seen = screen_text(app)
        assert "→ p2" not in seen and GONE not in seen, seen
        await pilot.press("ctrl+z")  # one step brings both back
        await settle(pilot)
        await settle(pilot)
        undone = audit(db)[before + len(landed) :]
        assert {e["action"] for e in undone} == {"undo"} and len({e["batch"] for e in undone}) == 1, undone
        await settle(pilot)
        seen = screen_text(app)
        assert "→ p2" in seen and GONE in seen, seen
